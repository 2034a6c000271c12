import Foundation
import HandoverCore
import HandoverSchema

/// The People page (`/dashboard/people`, admins only): who has signed in through the
/// organisation's provider, with the role each was last granted and a form for the roles an
/// admin grants besides the provider's; the directory's people; and the history of sign-ins,
/// refusals, sign-outs, the provider's logouts, break-glass key sign-ins, and who changed apps,
/// webhooks, devices and keys.
package enum PeoplePage {
    /// The page: `people` who signed in, the `directory`'s people (``DirectorySection``) and the
    /// history `events`, newest first; `error` is a refused roles form: whose, and why.
    /// `providerConfigured` words the empty list; `provisioningOn` says whether the directory
    /// provisions people.
    @HTMLBuilder
    package static func body(people: [Person], events: [AdminEvent], directory: [DirectoryListing], providerConfigured: Bool,
                             provisioningOn: Bool, viewer: DashboardViewer, error: (person: UUID, reason: String)?) -> HTML {
        HTML.element("section") {
            HTML.element("h2") { "People" }
            if people.isEmpty {
                HTML.element("p", ["class": "note"]) {
                    providerConfigured ? "Nobody has signed in through the identity provider yet."
                        : "No identity provider is configured: the dashboard opens with admin keys."
                }
            } else {
                HTML.element("table", ["id": "people"]) {
                    HTML.element("tr") {
                        HTML.element("th") { "Name" }; HTML.element("th") { "Email" }; HTML.element("th") { "Role" }
                        HTML.element("th") { "Local roles" }; HTML.element("th") { "Last sign-in" }; HTML.element("th") { "Subject" }
                    }
                    for person in people {
                        let id = person.id?.uuidString.lowercased() ?? ""
                        HTML.element("tr", ["id": "person-\(id)"]) {
                            HTML.element("td") { person.name ?? "–" }
                            HTML.element("td") { person.email ?? "–" }
                            HTML.element("td") { ((try? Permissions(text: person.grants)) ?? Permissions([])).summary }
                            HTML.element("td") { rolesForm(person, id: id, csrf: viewer.csrfToken,
                                                           error: error?.person == person.id ? error?.reason : nil) }
                            HTML.element("td") { DashboardLayout.time(person.lastSignInAt) }
                            HTML.element("td") { HTML.element("code") { person.subject } }
                        }
                    }
                }
            }
        }
        DirectorySection.render(directory, provisioningOn: provisioningOn)
        HTML.element("section") {
            HTML.element("h2") { "History: sign-ins and administration" }
            HTML.element("table", ["id": "sign-ins"]) {
                HTML.element("tr") { HTML.element("th") { "When" }; HTML.element("th") { "What" }; HTML.element("th") { "Who" }; HTML.element("th") { "Detail" } }
                for event in events {
                    HTML.element("tr") {
                        HTML.element("td") { DashboardLayout.time(event.at) }
                        HTML.element("td") { event.kind.replacingOccurrences(of: "_", with: " ") }
                        HTML.element("td") { event.who }
                        HTML.element("td") { event.detail }
                    }
                }
            }
        }
    }

    /// A person's local roles, as a form: the roles an admin grants besides the provider's.
    package static func rolesForm(_ person: Person, id: String, csrf: String, error: String?) -> HTML {
        .element("form", ["method": "post", "action": "/dashboard/people/\(id)/roles", "class": "inline"]) {
            DashboardLayout.csrfField(csrf)
            if let error { HTML.element("p", ["class": "error", "role": "alert"]) { error } }
            HTML.element("input", ["type": "text", "name": "roles", "value": person.localGrants ?? "", "aria-label": "Local roles",
                                   "placeholder": "operator@ICU"])
            HTML.element("button", ["type": "submit"]) { "Set" }
        }
    }
}
