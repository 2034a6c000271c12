import Foundation
import HandoverCore
import HandoverPages
import HandoverSchema
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
            PeoplePage.body(people: people, events: events, directory: directory, providerConfigured: auth.provider != nil,
                            provisioningOn: provisioningOn, viewer: viewer, error: error)
        }
    }
}
