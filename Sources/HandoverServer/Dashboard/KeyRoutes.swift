import Foundation
import HandoverCore
import HandoverPages
import HandoverSchema
import Vapor

/// `/dashboard/keys`: the API keys of people and services (never the keys themselves), with
/// when each was made, last used and expires, a form to revoke each, and one to make a key (a
/// name, a role, a lifetime; the key is shown once). Admins only; the same rules as
/// `DELETE /api/v1/keys/{keyID}` and `handover admin create-key` (``KeyRequest``). A device's key
/// is on the device's page.
struct KeyRoutes: RouteCollection {
    let auth: DashboardAuth
    /// Ends keys and what they opened.
    let keys: KeyRevocation
    /// Each key's last use, noted in memory and written in batches.
    let keyUses: KeyUses

    func boot(routes: RoutesBuilder) throws {
        let keys = routes.grouped("dashboard", "keys")
        keys.get(use: list)
        keys.post(use: create)
        keys.post(":keyID", "revoke", use: revoke)
    }

    @Sendable func list(_ request: Request) async throws -> Response {
        try await auth.signedIn(request, needs: .admin) { viewer in
            try await listPage(request, viewer: viewer, values: KeysPage.FormValues(), error: nil, status: .ok)
        }
    }

    /// Makes a key from the form; a wrong field is refused with its name and what is accepted.
    @Sendable func create(_ request: Request) async throws -> Response {
        try await auth.signedIn(request, needs: .admin) { viewer in
            try DashboardAuth.checkCSRF(request, expected: viewer.csrfToken)
            let values = KeysPage.FormValues(name: (try? request.content.get(String.self, at: "name")) ?? "",
                                             role: (try? request.content.get(String.self, at: "role")) ?? "",
                                             expiresIn: (try? request.content.get(String.self, at: "expiresIn")) ?? "",
                                             site: (try? request.content.get(String.self, at: "site")) ?? "")
            let now = auth.clock.now()
            let made: (key: String, row: APIKey)
            do {
                made = try await KeyRequest(name: values.name, role: values.role, expiresIn: values.expiresIn, site: values.site)
                    .issue(now: now, on: auth.databases.primary)
            } catch let error as DomainError {
                return try await listPage(request, viewer: viewer, values: values, error: error.reason, status: .unprocessableEntity)
            }
            try await auth.recordAdminAction(.keyChanged, "made \"\(made.row.name)\" (\(made.row.scope) key \(made.row.keyPrefix)…)"
                                                + (made.row.site.map { " for \($0) only" } ?? "")
                                                + (made.row.expiresAt.map { ", expiring \(DashboardLayout.time($0))" } ?? ""), viewer: viewer, now: now)
            return DashboardLayout.page("New key", signedIn: viewer, status: .created) { KeysPage.created(made.row, key: made.key) }
        }
    }

    private func listPage(_ request: Request, viewer: DashboardViewer, values: KeysPage.FormValues, error: String?,
                          status: HTTPResponseStatus) async throws -> Response {
        try await keyUses.flush(on: auth.databases.primary)
        let keys = try await APIKey.allButDevices(on: auth.databases.primary)
        let now = auth.clock.now()
        return DashboardLayout.page("API keys", signedIn: viewer, status: status) {
            KeysPage.list(keys, now: now, viewer: viewer, values: values, error: error)
        }
    }

    @Sendable func revoke(_ request: Request) async throws -> Response {
        try await auth.signedIn(request, needs: .admin) { viewer in
            try DashboardAuth.checkCSRF(request, expected: viewer.csrfToken)
            guard let text = request.parameters.get("keyID"), let id = UUID(uuidString: text),
                  let key = try await APIKey.stored(id, on: auth.databases.primary), key.scope != APIKeyScope.device.rawValue else {
                throw DashboardError.notFound("No key of a person or service has this id.")
            }
            guard key.id != viewer.session.apiKeyID else {
                throw DashboardError(status: .conflict, message: "This session was opened with that key: revoke it from another session.")
            }
            let actor = try await auth.actor(of: viewer)
            if try await keys.revoke(key, actor: actor, now: auth.clock.now(), on: auth.databases.primary) {
                try await auth.recordAdminAction(.keyChanged, "revoked \"\(key.name)\" (\(key.scope) key \(key.keyPrefix)…)", viewer: viewer,
                                                    now: auth.clock.now())
            }
            return DashboardLayout.redirect("/dashboard/keys")
        }
    }
}
