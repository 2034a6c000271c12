import Foundation
import HandoverCore
import HandoverSchema

/// The Keys page (`/dashboard/keys`, admins only): the API keys of people and services (never the
/// keys themselves), with when each was made, last used and expires, a form to revoke each, and
/// one to make a key (a name, a role, a lifetime); and the page that shows a new key once.
package enum KeysPage {
    /// What the form was sent with, shown again beside a refusal.
    package struct FormValues: Sendable {
        package var name = ""
        package var role = AdminRole.viewer.rawValue
        package var expiresIn = ""
        package var site = ""

        package init(name: String = "", role: String = AdminRole.viewer.rawValue, expiresIn: String = "", site: String = "") {
            self.name = name
            self.role = role
            self.expiresIn = expiresIn
            self.site = site
        }
    }

    /// The list of `keys` as of `now`, after the form (with `values` and `error`, if any): each
    /// key's revoke button, except the key that opened `viewer`'s session.
    @HTMLBuilder
    package static func list(_ keys: [APIKey], now: Date, viewer: DashboardViewer, values: FormValues, error: String?) -> HTML {
        HTML.element("p", ["class": "note"]) {
            "Keys of people and services; a device's own key is on its page. Make one below, or with "
            HTML.element("code") { "handover admin create-key --scope admin|operator|viewer --name … [--expires-in 90d]" }
            ". A revoked or expired key is refused on its next request, on every instance; the dashboard sessions it "
            "signed in and the live streams it opened end with it."
        }
        form(values, error: error, csrf: viewer.csrfToken)
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

    /// The page of a key just made: `key` itself, shown once, and what its `row` says about it.
    package static func created(_ row: APIKey, key: String) -> HTML {
        .element("section") {
            HTML.element("p") {
                "The key of \"\(row.name)\", role \(row.scope)"
                row.site.map { " at \($0) only (it opens the dashboard, not the API)" } ?? " at every site"
                row.expiresAt.map { ", working until \(DashboardLayout.time($0))" } ?? ", working until it is revoked"
                ". It is shown only now (only its hash is kept): copy it to where it is used."
            }
            DashboardLayout.keyShownOnce(key)
            HTML.element("p") { HTML.element("a", ["href": "/dashboard/keys"]) { "Back to the keys" } }
        }
    }

    /// The form that makes a key.
    package static func form(_ values: FormValues, error: String?, csrf: String) -> HTML {
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
}
