import Foundation
import HandoverCore
import HandoverPages
import Vapor

/// `/dashboard/people`: who has signed in through the organisation's provider, with the role
/// each was last granted, and the history: sign-ins, refusals with their reason, sign-outs, the
/// provider's logouts, break-glass key sign-ins, and who changed apps, webhooks, devices and
/// keys. Admins only. An admin sets the roles a person has besides the provider's (``PersonRoles``):
/// added ones apply at the person's next sign-in; one taken away ends their sessions at once.
struct PeopleRoutes: RouteCollection {
    let auth: DashboardAuth
    /// Whether the directory provisions people (a SCIM token is set).
    var provisioningOn = false
    /// How many history entries the page shows, newest first.
    static let historyLimit = 100

    func boot(routes: RoutesBuilder) throws {
        routes.grouped("dashboard").get("people", use: people)
        routes.grouped("dashboard", "people").post(":personID", "roles", use: setRoles)
    }

    @Sendable func people(_ request: Request) async throws -> Response {
        try await auth.signedIn(request, needs: .admin) { viewer in
            try await page(request, viewer: viewer, error: nil, status: .ok)
        }
    }

    /// Sets a person's local roles (`roles`: `admin,operator@ICU`; empty for none).
    @Sendable func setRoles(_ request: Request) async throws -> Response {
        try await auth.signedIn(request, needs: .admin) { viewer in
            try DashboardAuth.checkCSRF(request, expected: viewer.csrfToken)
            guard let text = request.parameters.get("personID"), let id = UUID(uuidString: text),
                  let person = try await Person.stored(id, on: auth.databases.primary) else { throw DashboardError.notFound("No person has this id.") }
            let change: PersonRoles.Change
            do {
                change = try PersonRoles.plan((try? request.content.get(String.self, at: "roles")) ?? "", for: person)
            } catch let error as DomainError {
                return try await page(request, viewer: viewer, error: (id, error.reason), status: .unprocessableEntity)
            }
            let ended = try await PersonRoles.apply(change, to: person, sessions: auth.sessions, on: auth.databases.primary)
            try await auth.recordAdminAction(.rolesChanged, PersonRoles.describe(change, of: person, endedSessions: ended), viewer: viewer,
                                                now: auth.clock.now())
            return DashboardLayout.redirect("/dashboard/people#person-\(id.uuidString.lowercased())")
        }
    }

    /// The page; `error` is a refused roles form: whose, and why.
    private func page(_ request: Request, viewer: DashboardViewer, error: (person: UUID, reason: String)?,
                      status: HTTPResponseStatus) async throws -> Response {
        let people = try await Person.lastSignedIn(500, on: auth.databases.reads)
        let events = try await AdminEvent.newest(Self.historyLimit, on: auth.databases.reads)
        let directory = try await DirectoryListing.newest(500, on: auth.databases.reads)
        return DashboardLayout.page("People", signedIn: viewer, status: status) {
            HTML.element("section") {
                HTML.element("h2") { "People" }
                if people.isEmpty {
                    HTML.element("p", ["class": "note"]) {
                        auth.provider == nil ? "No identity provider is configured: the dashboard opens with admin keys."
                            : "Nobody has signed in through the identity provider yet."
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
                                HTML.element("td") { Self.rolesForm(person, id: id, csrf: viewer.csrfToken,
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
    }

    /// A person's local roles, as a form: the roles an admin grants besides the provider's.
    static func rolesForm(_ person: Person, id: String, csrf: String, error: String?) -> HTML {
        .element("form", ["method": "post", "action": "/dashboard/people/\(id)/roles", "class": "inline"]) {
            DashboardLayout.csrfField(csrf)
            if let error { HTML.element("p", ["class": "error", "role": "alert"]) { error } }
            HTML.element("input", ["type": "text", "name": "roles", "value": person.localGrants ?? "", "aria-label": "Local roles",
                                   "placeholder": "operator@ICU"])
            HTML.element("button", ["type": "submit"]) { "Set" }
        }
    }
}
