import Fluent
import Foundation
import HandoverCore
import Vapor

/// `/dashboard/people`: who has signed in through the organisation's provider, with the role
/// each was last granted, and the history: sign-ins, refusals with their reason, sign-outs, the
/// provider's logouts, break-glass key sign-ins, and who changed apps, webhooks, devices and
/// keys. Admins only.
struct PeopleRoutes: RouteCollection {
    let auth: DashboardAuth
    /// How many history entries the page shows, newest first.
    static let historyLimit = 100

    func boot(routes: RoutesBuilder) throws {
        routes.grouped("dashboard").get("people", use: people)
    }

    @Sendable func people(_ request: Request) async throws -> Response {
        try await auth.signedIn(request, needs: .admin) { session in
            let people = try await Person.query(on: request.readDB).sort(\.$lastSignInAt, .descending).limit(500).all()
            let events = try await AdminEvent.query(on: request.readDB).sort(\.$at, .descending).limit(Self.historyLimit).all()
            return DashboardLayout.page("People", signedIn: session) {
                HTML.element("section") {
                    HTML.element("h2") { "People" }
                    if people.isEmpty {
                        HTML.element("p", ["class": "note"]) {
                            auth.provider == nil ? "No identity provider is configured: the dashboard opens with admin keys."
                                : "Nobody has signed in through the identity provider yet."
                        }
                    } else {
                        HTML.element("table", ["id": "people"]) {
                            HTML.element("tr") { HTML.element("th") { "Name" }; HTML.element("th") { "Email" }; HTML.element("th") { "Role" }; HTML.element("th") { "Last sign-in" }; HTML.element("th") { "Subject" } }
                            for person in people {
                                HTML.element("tr") {
                                    HTML.element("td") { person.name ?? "–" }
                                    HTML.element("td") { person.email ?? "–" }
                                    HTML.element("td") { ((try? Permissions(text: person.grants)) ?? Permissions([])).summary }
                                    HTML.element("td") { DashboardLayout.time(person.lastSignInAt) }
                                    HTML.element("td") { HTML.element("code") { person.subject } }
                                }
                            }
                        }
                    }
                }
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
    }
}
