import Fluent
import Foundation
import HandoverCore
import Vapor

extension Request {
    /// Records an administrator's action in the history the People page shows: who acted (the
    /// dashboard's person or key when `session` is given, else the request's API key) and what.
    func recordAdminAction(_ kind: AdminEvent.Kind, _ detail: String, session: DashboardSession? = nil, now: Date) async throws {
        let who: String
        if let session {
            who = try await DashboardAuth.actor(of: session, on: db)
        } else {
            who = (try? principal.actor) ?? "an API key"
        }
        try await AdminEvent(at: now, kind: kind, personID: session?.personID, who: who, detail: String(detail.prefix(500))).record(on: db)
    }
}
