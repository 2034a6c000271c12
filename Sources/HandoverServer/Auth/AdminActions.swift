import Foundation
import HandoverCore
import HandoverPages
import HandoverSchema
import Vapor

extension DashboardAuth {
    /// Records an administrator's action in the history the People page shows: who acted (the
    /// dashboard's person or key) and what.
    func recordAdminAction(_ kind: AdminEvent.Kind, _ detail: String, viewer: DashboardViewer, now: Date) async throws {
        let database = databases.primary
        let who = try await DashboardSessions.actor(of: viewer.session, on: database)
        try await AdminEvent(at: now, kind: kind, personID: viewer.personID, who: who, detail: String(detail.prefix(500))).record(on: database)
    }
}

extension Request {
    /// Records an administrator's action made with the request's API key in the history the
    /// People page shows.
    func recordAdminAction(_ kind: AdminEvent.Kind, _ detail: String, now: Date, in databases: ServerDatabases) async throws {
        let who = (try? principal.actor) ?? "an API key"
        try await AdminEvent(at: now, kind: kind, who: who, detail: String(detail.prefix(500))).record(on: databases.primary)
    }
}
