import Foundation
import HandoverCore

/// The Custody page (`/dashboard/custody`): who held which device (issue 40), searched by a
/// person's name or email, for one person (every device they held and each hand-over's outcome,
/// linking to its timeline), one device, or a period; with links to the same rows as CSV and JSON.
package enum CustodyPage {
    /// The page's title: the person's name when the report is one person's and found a row.
    package static func title(_ report: CustodyReport, rows: [CustodyReport.Row]) -> String {
        report.person != nil ? (rows.first.map { "Devices held by \($0.personName ?? $0.personEmail ?? "this person")" } ?? "Custody")
            : "Custody"
    }

    /// The page of `report`'s `page`: the search form (with the name or email searched), the
    /// count of the rows and which page this is, and this page's rows. `query` is the request's
    /// query string (`?…`, or empty), repeated on the download links.
    @HTMLBuilder
    package static func body(_ report: CustodyReport, page: CustodyReport.Page, query: String) -> HTML {
        let (personText, rows, total, pageCount, number) = (report.personText, page.rows, page.total, page.pageCount, page.page)
        HTML.element("form", ["method": "get", "action": "/dashboard/custody", "class": "search"]) {
            HTML.element("input", ["type": "search", "name": "q", "value": personText ?? "", "placeholder": "a person's name or email"])
            HTML.element("input", ["type": "date", "name": "from", "aria-label": "from"])
            HTML.element("input", ["type": "date", "name": "to", "aria-label": "to"])
            HTML.element("button", ["type": "submit"]) { "Search" }
        }
        HTML.element("p", ["class": "note", "id": "custody-count"]) {
            "\(total) custod\(total == 1 ? "y" : "ies")"
            if pageCount > 1 { " · page \(number) of \(pageCount)" }
            " · "; HTML.element("a", ["href": "/dashboard/custody.csv" + query]) { "CSV" }
            " · "; HTML.element("a", ["href": "/dashboard/custody.json" + query]) { "JSON" }
        }
        HTML.element("div", ["class": "scroll"]) {
            HTML.element("table", ["id": "custody"]) {
                HTML.element("tr") {
                    HTML.element("th") { "Person" }; HTML.element("th") { "Device" }; HTML.element("th") { "Checked out" }
                    HTML.element("th") { "Checked in" }; HTML.element("th") { "Hand-over" }
                }
                for row in rows {
                    HTML.element("tr") {
                        HTML.element("td") {
                            HTML.element("a", ["href": "/dashboard/custody?person=\(row.userID.uuidString.lowercased())"]) {
                                row.personName ?? row.personEmail ?? row.userID.uuidString.lowercased()
                            }
                        }
                        HTML.element("td") {
                            HTML.element("a", ["href": "/dashboard/devices/\(row.deviceID.uuidString.lowercased())"]) { row.deviceName }
                        }
                        HTML.element("td") { DashboardLayout.time(row.checkedOutAt) }
                        HTML.element("td") { row.checkedInAt.map(DashboardLayout.time) ?? "holds it" }
                        HTML.element("td") {
                            if let run = row.runID, let status = row.runStatus {
                                DashboardLayout.badge(status); " "
                                HTML.element("a", ["href": DashboardLinks.run(run)]) { "timeline" }
                                if !row.appsLeftSignedIn.isEmpty { " · still signed in: \(row.appsLeftSignedIn.joined(separator: ", "))" }
                            } else {
                                row.endedWithoutRun ?? "—"
                            }
                        }
                    }
                }
            }
        }
    }
}
