import FluentKit
import Foundation
import HandoverSchema
import SQLKit

/// The people area's statements: the dashboard's people, their sign-ins in progress
/// (`admin_sign_in_attempts`), their dashboard sessions, the administrators' history as the
/// People page lists it, and a provider logout token's one use; and the sites a person may see
/// (``SiteFilter``) as the other stores' SQL condition. ``AdminSignIn``, ``DashboardSessions`` and
/// ``PersonRoles`` decide; this store reads and writes the rows.
package struct PeopleStore: Sendable {
    package let database: DatabaseHandle

    package init(_ database: DatabaseHandle) { self.database = database }

    // MARK: People

    /// The person the provider `issuer` knows as `subject`, if they signed in before.
    package func person(issuer: String, subject: String) async throws -> Person? {
        try await Person.query(on: database).filter(\.$issuer == issuer).filter(\.$subject == subject).first()
    }

    /// Inserts a new person or writes a known one's changed fields.
    package func save(_ person: Person) async throws {
        try await person.save(on: database)
    }

    /// The `limit` people who signed in last, most recent first.
    package func lastSignedIn(_ limit: Int) async throws -> [Person] {
        try await Person.query(on: database).sort(\.$lastSignInAt, .descending).limit(limit).all()
    }

    /// The newest `limit` events of the administrators' history, newest first.
    package func newestAdminEvents(_ limit: Int) async throws -> [AdminEvent] {
        try await AdminEvent.query(on: database).sort(\.$at, .descending).limit(limit).all()
    }

    // MARK: Sign-ins in progress

    /// Deletes the sign-ins in progress that expired before `date`.
    package func removeSignInAttempts(expiredBefore date: Date) async throws {
        try await AdminSignInAttempt.query(on: database).filter(\.$expiresAt < date).delete()
    }

    /// How many sign-ins are in progress.
    package func signInAttemptCount() async throws -> Int {
        try await AdminSignInAttempt.query(on: database).count()
    }

    /// When the sign-in in progress that expires first expires; nil when there is none.
    package func firstSignInAttemptExpiry() async throws -> Date? {
        try await AdminSignInAttempt.query(on: database).sort(\.$expiresAt).first()?.expiresAt
    }

    /// Inserts a new sign-in in progress.
    package func insert(_ attempt: AdminSignInAttempt) async throws {
        try await attempt.create(on: database)
    }

    /// The sign-in in progress whose `state` has this digest, if any.
    package func signInAttempt(stateHash: String) async throws -> AdminSignInAttempt? {
        try await AdminSignInAttempt.query(on: database).filter(\.$stateHash == stateHash).first()
    }

    // MARK: Dashboard sessions

    /// Inserts a new dashboard session.
    package func insert(_ session: DashboardSession) async throws {
        try await session.create(on: database)
    }

    /// The dashboard session whose token has this digest, if any.
    package func dashboardSession(tokenHash: String) async throws -> DashboardSession? {
        try await DashboardSession.query(on: database).filter(\.$tokenHash == tokenHash).first()
    }

    /// Writes a dashboard session's changed fields (its last request).
    package func update(_ session: DashboardSession) async throws {
        try await session.update(on: database)
    }

    /// Every dashboard session of the person with `personID`.
    package func dashboardSessions(of personID: UUID) async throws -> [DashboardSession] {
        try await DashboardSession.query(on: database).filter(\.$personID == personID).all()
    }

    /// Every dashboard session opened in the provider's session `sid`.
    package func dashboardSessions(providerSID sid: String) async throws -> [DashboardSession] {
        try await DashboardSession.query(on: database).filter(\.$providerSID == sid).all()
    }

    /// Deletes the dashboard sessions with these ids: one statement.
    package func removeDashboardSessions(_ ids: [UUID]) async throws {
        try await DashboardSession.query(on: database).filter(\.$id ~~ ids).delete()
    }

    // MARK: Provider logout tokens

    /// Records a logout token's `iss` and `jti` until `expiresAt` (``TokenReplayCache``); false
    /// when it was recorded before, or when the database does not speak SQL.
    package func claimLogoutToken(issuer: String, jti: String, expiresAt: Date, now: Date) async throws -> Bool {
        guard let sql = database as? any SQLDatabase else { return false }
        return try await TokenReplayCache.claim(.logoutToken, issuer: issuer, jti: jti, expiresAt: expiresAt, on: sql, now: now)
    }
}

extension SiteFilter {
    /// A condition on a table's `site_key` column, where each row keeps its site's
    /// ``SiteName/key`` (`column` names it, such as `d.site_key`): `TRUE` for every site,
    /// `FALSE` for none.
    package func condition(_ column: String = "site_key") -> SQLQueryString {
        guard let sites else { return "1 = 1" }
        guard !sites.isEmpty else { return "1 = 0" }
        let list = SQLList(sites.map(\.key).sorted().map { SQLBind($0) })
        return "\(unsafeRaw: column) IN \(SQLGroupExpression(list))"
    }
}

extension QueryBuilder where Model == Device {
    /// Only the devices `sites` shows.
    package func visible(to sites: SiteFilter) -> Self {
        guard let names = sites.sites else { return self }
        return filter(\.$siteKey ~~ names.map(\.key))
    }
}
