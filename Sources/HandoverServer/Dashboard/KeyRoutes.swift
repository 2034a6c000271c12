import Fluent
import Foundation
import HandoverCore
import Vapor

/// `/dashboard/keys`: the API keys of people and services (never the keys themselves), with
/// when each was made, last used and expires, and a form to revoke each. Admins only; the same
/// rules as `DELETE /api/v1/keys/{keyID}`. A device's key is on the device's page.
struct KeyRoutes: RouteCollection {
    let auth: DashboardAuth
    /// Ends keys and what they opened.
    let keys: KeyRevocation
    /// Each key's last use, noted in memory and written in batches.
    let keyUses: KeyUses

    func boot(routes: RoutesBuilder) throws {
        let keys = routes.grouped("dashboard", "keys")
        keys.get(use: list)
        keys.post(":keyID", "revoke", use: revoke)
    }

    @Sendable func list(_ request: Request) async throws -> Response {
        try await auth.signedIn(request, needs: .admin) { session in
            try await keyUses.flush(on: request.db)
            let keys = try await APIKey.query(on: request.db).filter(\.$scope != APIKeyScope.device.rawValue)
                .sort(\.$createdAt).sort(\.$id).all()
            let now = auth.clock.now()
            return DashboardLayout.page("API keys", signedIn: session) {
                HTML.element("p", ["class": "note"]) {
                    "Keys of people and services; a device's own key is on its page. Make one with "
                    HTML.element("code") { "handover admin create-key --scope admin|operator|viewer --name … [--expires-in 90d]" }
                    ". A revoked or expired key is refused on its next request, on every instance; the dashboard sessions it "
                    "signed in and the live streams it opened end with it."
                }
                HTML.element("div", ["class": "scroll"]) {
                    HTML.element("table", ["id": "keys"]) {
                        HTML.element("tr") {
                            HTML.element("th") { "Name" }; HTML.element("th") { "Role" }; HTML.element("th") { "Key" }
                            HTML.element("th") { "Made" }; HTML.element("th") { "Last used" }; HTML.element("th") { "Expires" }; HTML.element("th") { "" }
                        }
                        for key in keys {
                            HTML.element("tr") {
                                HTML.element("td") { key.name }
                                HTML.element("td") { key.scope }
                                HTML.element("td") { HTML.element("code") { key.keyPrefix + "…" } }
                                HTML.element("td") { DashboardLayout.time(key.createdAt) }
                                HTML.element("td") { key.lastUsedAt.map { DashboardLayout.time($0) } ?? "never" }
                                HTML.element("td") { key.expiresAt.map { DashboardLayout.time($0) + ($0 <= now ? " (expired)" : "") } ?? "never" }
                                HTML.element("td") {
                                    if let revoked = key.revokedAt {
                                        "revoked \(DashboardLayout.time(revoked))"
                                    } else if key.id != session.apiKeyID {
                                        HTML.element("form", ["method": "post", "action": "/dashboard/keys/\(key.id?.uuidString.lowercased() ?? "")/revoke",
                                                              "class": "inline"]) {
                                            DashboardLayout.csrfField(session.csrfToken)
                                            HTML.element("button", ["type": "submit"]) { "Revoke" }
                                        }
                                    } else {
                                        "this session's key"
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    @Sendable func revoke(_ request: Request) async throws -> Response {
        try await auth.signedIn(request, needs: .admin) { session in
            try DashboardAuth.checkCSRF(request, expected: session.csrfToken)
            guard let text = request.parameters.get("keyID"), let id = UUID(uuidString: text),
                  let key = try await APIKey.find(id, on: request.db), key.scope != APIKeyScope.device.rawValue else {
                throw DashboardError.notFound("No key of a person or service has this id.")
            }
            guard key.id != session.apiKeyID else {
                throw DashboardError(status: .conflict, message: "This session was opened with that key: revoke it from another session.")
            }
            let actor = try await DashboardAuth.actor(of: session, on: request.db)
            if try await keys.revoke(key, actor: actor, now: auth.clock.now(), on: request.db) {
                try await request.recordAdminAction(.keyChanged, "revoked \"\(key.name)\" (\(key.scope) key \(key.keyPrefix)…)", session: session,
                                                    now: auth.clock.now())
            }
            return DashboardLayout.redirect("/dashboard/keys")
        }
    }
}
