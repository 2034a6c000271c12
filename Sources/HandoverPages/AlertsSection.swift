import Foundation
import HandoverCore

/// The alerts table (`/dashboard/alerts`, and a device's page when it has alerts): the devices
/// that need a person (overdue, not seen, in Lost Mode), open alerts first, each with who
/// acknowledged it, or the acknowledge button where the viewer's role at the device's site lets
/// them use it.
package enum AlertsSection {
    /// The alerts page's text when no alert is listed.
    package static let emptyText = "No device needs a person: nothing is overdue, unseen or in Lost Mode."

    /// The alerts as a table, with the acknowledge button where the session may use it; `back`
    /// (`device`) sends the acknowledgement back to the device's page.
    package static func html(_ alerts: [DeviceAlert], viewer: DashboardViewer, emptyText: String, back: String? = nil) -> HTML {
        .element("section", ["id": "alerts"]) {
            HTML.element("h2") { "Alerts (\(alerts.filter { $0.clearedAt == nil && $0.acknowledgedAt == nil }.count) to acknowledge)" }
            if alerts.isEmpty {
                HTML.element("p", ["class": "note"]) { emptyText }
            } else {
                HTML.element("div", ["class": "scroll"]) {
                    HTML.element("table", ["id": "alert-list"]) {
                        HTML.element("tr") {
                            HTML.element("th") { "Device" }; HTML.element("th") { "Site" }; HTML.element("th") { "Why" }
                            HTML.element("th") { "Raised" }; HTML.element("th") { "Acknowledged" }
                        }
                        for alert in alerts {
                            HTML.element("tr", ["class": alert.clearedAt == nil ? "open" : "cleared"]) {
                                HTML.element("td") {
                                    HTML.element("a", ["href": "/dashboard/devices/\(alert.device.uuidString.lowercased())"]) { alert.deviceName }
                                }
                                HTML.element("td") { alert.site ?? "—" }
                                HTML.element("td") { HTML.element("strong") { alert.cause.words }; ": "; alert.detail }
                                HTML.element("td") {
                                    DashboardLayout.time(alert.raisedAt)
                                    if let cleared = alert.clearedAt { HTML.element("br"); "over "; DashboardLayout.time(cleared) }
                                }
                                HTML.element("td") {
                                    if let at = alert.acknowledgedAt {
                                        "\(alert.acknowledgedBy ?? "someone"), "; DashboardLayout.time(at)
                                    } else if viewer.may(.operator, at: alert.site) {
                                        let query = back.map { "?back=\($0)" } ?? ""
                                        HTML.element("form", ["method": "post", "action": "/dashboard/alerts/\(alert.id.uuidString.lowercased())/acknowledge\(query)"]) {
                                            DashboardLayout.csrfField(viewer.csrfToken)
                                            HTML.element("button", ["type": "submit"]) { "Acknowledge" }
                                        }
                                    } else {
                                        "not yet"
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
