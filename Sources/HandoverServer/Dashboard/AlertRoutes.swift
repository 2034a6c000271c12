import Foundation
import HandoverCore
import HandoverPages
import Vapor

/// `/dashboard/alerts`: the devices that need a person (overdue, not seen, in Lost Mode) at the
/// sites the session sees, open alerts first, each acknowledged by an operator at its site so the
/// others who were mailed know someone has it. The acknowledgement is in the device's history
/// and the audit log.
struct AlertRoutes: RouteCollection {
    let auth: DashboardAuth

    func boot(routes: RoutesBuilder) throws {
        let alerts = routes.grouped("dashboard", "alerts")
        alerts.get(use: list)
        alerts.post(":alertID", "acknowledge", use: acknowledge)
    }

    @Sendable func list(_ request: Request) async throws -> Response {
        try await auth.signedIn(request) { viewer in
            let alerts = try await DeviceAlertStore.list(visibleTo: viewer.siteFilter, limit: 200, on: auth.databases.reads)
            return DashboardLayout.page("Alerts", signedIn: viewer) {
                Self.section(alerts, viewer: viewer, emptyText: "No device needs a person: nothing is overdue, unseen or in Lost Mode.")
            }
        }
    }

    @Sendable func acknowledge(_ request: Request) async throws -> Response {
        try await auth.signedIn(request, needs: .operator, everySite: false) { viewer in
            try DashboardAuth.checkCSRF(request, expected: viewer.csrfToken)
            guard let text = request.parameters.get("alertID"), let id = UUID(uuidString: text) else {
                throw DashboardError.notFound("No alert has this id.")
            }
            let actor = try await auth.actor(of: viewer)
            let outcome = try await DeviceAlertStore.acknowledge(id, by: actor, may: { viewer.may(.operator, at: $0) },
                                                                 in: auth.databases, now: auth.clock.now())
            switch outcome {
            case .notFound:
                throw DashboardError.notFound("No alert has this id at a site where your role lets you acknowledge it.")
            case .acknowledged(let alert), .already(let alert):
                let back = request.query[String.self, at: "back"] == "device" ? "/dashboard/devices/\(alert.device.uuidString.lowercased())" : "/dashboard/alerts"
                return DashboardLayout.redirect(back)
            }
        }
    }

    /// The alerts as a table, with the acknowledge button where the session may use it.
    static func section(_ alerts: [DeviceAlert], viewer: DashboardViewer, emptyText: String, back: String? = nil) -> HTML {
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
