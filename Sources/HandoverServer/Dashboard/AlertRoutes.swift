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
                AlertsSection.html(alerts, viewer: viewer, emptyText: AlertsSection.emptyText)
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
}
