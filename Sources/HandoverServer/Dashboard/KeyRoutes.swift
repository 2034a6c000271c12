import Foundation
import HandoverCore
import HandoverPages
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

    /// What the form was sent with, shown again beside a refusal.
    struct FormValues {
        var name = ""
        var role = AdminRole.viewer.rawValue
        var expiresIn = ""
        var site = ""
    }

    @Sendable func list(_ request: Request) async throws -> Response {
        try await auth.signedIn(request, needs: .admin) { viewer in
            try await listPage(request, viewer: viewer, values: FormValues(), error: nil, status: .ok)
        }
    }

    /// Makes a key from the form; a wrong field is refused with its name and what is accepted.
    @Sendable func create(_ request: Request) async throws -> Response {
        try await auth.signedIn(request, needs: .admin) { viewer in
            try DashboardAuth.checkCSRF(request, expected: viewer.csrfToken)
            let values = FormValues(name: (try? request.content.get(String.self, at: "name")) ?? "",
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
            return DashboardLayout.page("New key", signedIn: viewer, status: .created) {
                HTML.element("section") {
                    HTML.element("p") {
                        "The key of \"\(made.row.name)\", role \(made.row.scope)"
                        made.row.site.map { " at \($0) only (it opens the dashboard, not the API)" } ?? " at every site"
                        made.row.expiresAt.map { ", working until \(DashboardLayout.time($0))" } ?? ", working until it is revoked"
                        ". It is shown only now (only its hash is kept): copy it to where it is used."
                    }
                    DashboardLayout.keyShownOnce(made.key)
                    HTML.element("p") { HTML.element("a", ["href": "/dashboard/keys"]) { "Back to the keys" } }
                }
            }
        }
    }

    private func listPage(_ request: Request, viewer: DashboardViewer, values: FormValues, error: String?,
                          status: HTTPResponseStatus) async throws -> Response {
        try await keyUses.flush(on: auth.databases.primary)
        let keys = try await APIKey.allButDevices(on: auth.databases.primary)
        let now = auth.clock.now()
        return DashboardLayout.page("API keys", signedIn: viewer, status: status) {
            HTML.element("p", ["class": "note"]) {
                "Keys of people and services; a device's own key is on its page. Make one below, or with "
                HTML.element("code") { "handover admin create-key --scope admin|operator|viewer --name … [--expires-in 90d]" }
                ". A revoked or expired key is refused on its next request, on every instance; the dashboard sessions it "
                "signed in and the live streams it opened end with it."
            }
            Self.form(values, error: error, csrf: viewer.csrfToken)
            HTML.element("div", ["class": "scroll"]) {
                HTML.element("table", ["id": "keys"]) {
                    HTML.element("tr") {
                        HTML.element("th") { "Name" }; HTML.element("th") { "Role" }; HTML.element("th") { "Site" }; HTML.element("th") { "Key" }
                        HTML.element("th") { "Made" }; HTML.element("th") { "Last used" }; HTML.element("th") { "Expires" }; HTML.element("th") { "" }
                    }
                    for key in keys {
                        HTML.element("tr") {
                            HTML.element("td") { key.name }
                            HTML.element("td") { key.scope }
                            HTML.element("td") { key.site ?? "every site" }
                            HTML.element("td") { HTML.element("code") { key.keyPrefix + "…" } }
                            HTML.element("td") { DashboardLayout.time(key.createdAt) }
                            HTML.element("td") { key.lastUsedAt.map { DashboardLayout.time($0) } ?? "never" }
                            HTML.element("td") { key.expiresAt.map { DashboardLayout.time($0) + ($0 <= now ? " (expired)" : "") } ?? "never" }
                            HTML.element("td") {
                                if let revoked = key.revokedAt {
                                    "revoked \(DashboardLayout.time(revoked))"
                                } else if key.id != viewer.session.apiKeyID {
                                    HTML.element("form", ["method": "post", "action": "/dashboard/keys/\(key.id?.uuidString.lowercased() ?? "")/revoke",
                                                          "class": "inline"]) {
                                        DashboardLayout.csrfField(viewer.csrfToken)
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

    /// The form that makes a key.
    static func form(_ values: FormValues, error: String?, csrf: String) -> HTML {
        .element("section", ["id": "make-key"]) {
            HTML.element("h2") { "Make a key" }
            if let error { HTML.element("p", ["class": "error", "id": "form-error", "role": "alert"]) { error } }
            HTML.element("form", ["method": "post", "action": "/dashboard/keys", "class": "stack", "id": "key-form"]) {
                DashboardLayout.csrfField(csrf)
                HTML.element("label") {
                    "Name: who or what holds it"
                    HTML.element("input", ["type": "text", "name": "name", "value": values.name, "maxlength": String(KeyRequest.maximumNameLength),
                                           "placeholder": "ward-7 wall screen"])
                }
                HTML.element("label") {
                    "Role"
                    HTML.element("select", ["name": "role"]) {
                        for role in AdminRole.allCases {
                            let words = switch role {
                            case .viewer: "viewer: reads devices, runs, history, apps and webhooks"
                            case .operator: "operator: also starts runs, puts devices back in service, registers devices"
                            case .admin: "admin: also the registry, webhooks, keys and people"
                            }
                            HTML.element("option", role.rawValue == values.role ? ["value": role.rawValue, "selected": ""] : ["value": role.rawValue]) { words }
                        }
                    }
                }
                HTML.element("label") {
                    "Stops working after (\(KeyLifetime.acceptedForm); empty: when revoked)"
                    HTML.element("input", ["type": "text", "name": "expiresIn", "value": values.expiresIn, "placeholder": "90d"])
                }
                HTML.element("label") {
                    "Site (empty: every site). A site's key opens only the dashboard, with its role at that site: a ward's wall screen."
                    HTML.element("input", ["type": "text", "name": "site", "value": values.site, "maxlength": String(SiteName.maximumLength),
                                           "placeholder": "Ward 7"])
                }
                HTML.element("p", ["class": "note"]) {
                    "People get roles at named sites from the identity provider's role map."
                }
                HTML.element("button", ["type": "submit"]) { "Make the key" }
            }
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
