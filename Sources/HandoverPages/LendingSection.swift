import Foundation
import HandoverCore
import HandoverProtocol

/// The overview's list of devices held past their lending period (issue 40): who holds (or last
/// held) each, since when, and under which period. Nothing when no lending period is set.
package enum LendingSection {
    package static let id = "held-too-long"

    package static func html(_ overruns: (rows: [LendingOverruns.Row], total: Int), settings: CustodySettings) -> HTML {
        .element("section", ["id": id]) {
            HTML.element("h2") { "Held past the lending period (\(overruns.total))" }
            if !settings.checksLending {
                HTML.element("p", ["class": "note"]) {
                    "No lending period is set: start the server with --overdue-after 13h (the longest shift plus an hour), "
                    "or per site with --lending-period ICU=13h."
                }
            } else if overruns.rows.isEmpty {
                HTML.element("p", ["class": "note"]) { "No device is held past its lending period." }
            } else {
                HTML.element("div", ["class": "scroll"]) {
                    HTML.element("table", ["id": "held-too-long-devices"]) {
                        HTML.element("tr") {
                            HTML.element("th") { "Device" }; HTML.element("th") { "Site" }; HTML.element("th") { "Held by" }
                            HTML.element("th") { "Since" }; HTML.element("th") { "Period" }; HTML.element("th") { "Now" }
                        }
                        for row in overruns.rows {
                            HTML.element("tr") {
                                HTML.element("td") { HTML.element("a", ["href": "/dashboard/devices/\(row.deviceID.uuidString.lowercased())"]) { row.deviceName } }
                                HTML.element("td") { row.site ?? "—" }
                                HTML.element("td") {
                                    HTML.element("a", ["href": "/dashboard/custody?person=\(row.userID.uuidString.lowercased())"]) { row.personLabel }
                                    if row.checkedInAt != nil { HTML.element("span", ["class": "note"]) { " (last holder)" } }
                                }
                                HTML.element("td") { DashboardLayout.time(row.checkedOutAt) }
                                HTML.element("td") { OverdueDevices.duration(row.lendingPeriod) }
                                HTML.element("td") { DashboardLayout.badge(row.deviceStatus) }
                            }
                        }
                    }
                }
                if overruns.total > overruns.rows.count {
                    HTML.element("p", ["class": "note"]) { "The \(overruns.rows.count) held longest of \(overruns.total)." }
                }
            }
        }
    }
}
