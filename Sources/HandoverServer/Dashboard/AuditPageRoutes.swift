import Foundation
import HandoverCore
import TransparencyLog
import HandoverPages
import Vapor

/// `/dashboard/audit`: the audit log's size, its latest signed checkpoint and verifier key, each
/// SIEM's delivery log (how far it has the log, its attempts and last error), and Shared Signals:
/// each stream's deliveries and the identity provider's latest SETs. Admins only.
struct AuditPageRoutes: RouteCollection {
    let auth: DashboardAuth
    let audit: AuditService

    func boot(routes: RoutesBuilder) throws {
        routes.get("dashboard", "audit", use: page)
    }

    @Sendable func page(_ request: Request) async throws -> Response {
        try await auth.signedIn(request, needs: .admin) { viewer in
            let sql = try auth.databases.readSQL()
            let log = AuditLog(sql: sql)
            let size = try await log.size()
            let checkpoint = try await log.latestCheckpoint()
            let destinations = try await SIEMStream.statuses(on: sql)
            let key = try await audit.verifierKey().description
            let streams = try await SharedSignalsReport.streams(on: sql)
            let received = try await SharedSignalsReport.received(on: sql)
            return DashboardLayout.page("Audit log", signedIn: viewer) {
                AuditPage.body(size: size, checkpoint: checkpoint, verifierKey: key, destinations: destinations, streams: streams, received: received)
            }
        }
    }
}
