import Foundation
import HandoverCore
import HandoverProtocol
import HandoverSchema

/// A device page's custody: who holds it now, and who held it before, each with the hand-over
/// (the run) that checked it in (issue 40).
package enum CustodySection {
    package static func html(holder: Custody?, history: [Custody], runs: [UUID: LogoutRun]) -> HTML {
        .element("section", ["id": "custody"]) {
            HTML.element("h2") { "Custody" }
            HTML.element("p", ["id": "holder"]) {
                if let holder {
                    "Held by "
                    HTML.element("a", ["href": "/dashboard/custody?person=\(holder.userID.uuidString.lowercased())"]) {
                        HTML.element("strong") { holder.personLabel }
                    }
                    holder.personEmail.flatMap { $0 == holder.personLabel ? nil : " (\($0))" } ?? ""
                    " since "; DashboardLayout.time(holder.checkedOutAt)
                    " (\(Custody.CheckOut(rawValue: holder.checkedOutBy)?.words ?? holder.checkedOutBy))"
                } else {
                    "Nobody holds this device now."
                }
            }
            let past = history.filter { $0.checkedInAt != nil }
            if !past.isEmpty {
                HTML.element("div", ["class": "scroll"]) {
                    HTML.element("table", ["id": "custody-history"]) {
                        HTML.element("tr") {
                            HTML.element("th") { "Person" }; HTML.element("th") { "Checked out" }; HTML.element("th") { "Checked in" }
                            HTML.element("th") { "Hand-over" }
                        }
                        for custody in past {
                            HTML.element("tr") {
                                HTML.element("td") {
                                    HTML.element("a", ["href": "/dashboard/custody?person=\(custody.userID.uuidString.lowercased())"]) { custody.personLabel }
                                }
                                HTML.element("td") { DashboardLayout.time(custody.checkedOutAt) }
                                HTML.element("td") { DashboardLayout.time(custody.checkedInAt) }
                                HTML.element("td") {
                                    if let id = custody.runID, let run = runs[id] {
                                        DashboardLayout.badge(run.status); " "
                                        HTML.element("a", ["href": DashboardLinks.run(id)]) { "the run" }
                                    } else {
                                        custody.endedWithoutRun ?? "—"
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
