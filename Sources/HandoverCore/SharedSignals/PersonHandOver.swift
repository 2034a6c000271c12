import Foundation
import HandoverProtocol
import SQLKit
import SessionTokens

/// Ends everything of one person that Handover holds, when their identity provider says so
/// (a SET, a Global Token Revocation request): a logout run on each device they hold (the
/// hand-over ends the device's sessions and checks the custody in), then every other session
/// and Native SSO device secret of theirs, and their dashboard sessions (with the streams they
/// opened) when they are one of the dashboard's people too. Doing it twice changes nothing.
package struct PersonHandOver: Sendable {
    package let sessions: SessionAuthority
    package let runs: LogoutRunService
    package let dashboard: DashboardSessions

    package init(sessions: SessionAuthority, runs: LogoutRunService, dashboard: DashboardSessions) {
        self.sessions = sessions
        self.runs = runs
        self.dashboard = dashboard
    }

    package struct Done: Sendable, Equatable {
        package var people = 0
        package var sessions = 0
        package var runs: [UUID] = []
        package var dashboardSessions = 0
    }

    /// - Parameter trustedIssuers: whose `iss_sub` subjects name Handover's users by their id (its
    ///   own issuer) or by email (the provider's, when its `sub` is an email address).
    package func handOver(_ person: SubjectIdentifier, trustedIssuers: [String], reason: String) async throws -> Done {
        guard let sql = runs.database as? any SQLDatabase else { return Done() }
        let users = try await Self.users(named: person, trustedIssuers: Set(trustedIssuers), handoverIssuer: sessions.ring.issuer, on: sql)
        let admins = try await Self.dashboardPeople(named: person, trustedIssuers: Set(trustedIssuers), on: sql)
        var done = Done(people: Set(users).union(admins).count)
        for admin in admins { done.dashboardSessions += try await dashboard.endAll(of: admin, on: runs.database) }
        guard !users.isEmpty else { return done }
        let held = try await sql.raw("SELECT DISTINCT device_id FROM custodies WHERE checked_in_at IS NULL AND user_id IN (\(binds: users))")
            .all().map { try $0.decode(column: "device_id", as: UUID.self) }
        for device in held {
            do {
                done.runs.append(try await runs.createRun(deviceID: device, appIDs: nil, actor: reason).id)
            } catch let error as DomainError where error.kind == .conflict || error.code == "no_apps" {
                continue  // a hand-over is already under way, or there is nothing to log out of
            }
        }
        let secrets = try await sql.raw("SELECT id FROM device_secrets WHERE user_id IN (\(binds: users)) AND revoked_at IS NULL")
            .all().map { try $0.decode(column: "id", as: UUID.self) }
        try await sessions.revoke(deviceSecrets: secrets, reason: "identity_provider", on: runs.database)
        let live = try await sql.raw("SELECT id FROM user_sessions WHERE user_id IN (\(binds: users)) AND revoked_at IS NULL")
            .all().map { try $0.decode(column: "id", as: UUID.self) }
        try await sessions.revoke(sessions: live, reason: "identity_provider", on: runs.database)
        done.sessions = live.count + secrets.count
        return done
    }

    /// The dashboard's people a subject names: by email (compared without case), or by the
    /// `iss_sub` their provider gave them when that issuer is trusted.
    static func dashboardPeople(named subject: SubjectIdentifier, trustedIssuers: Set<String>, on sql: any SQLDatabase) async throws -> [UUID] {
        var found: Set<UUID> = []
        for identifier in subject.simpleIdentifiers {
            let rows: [any SQLRow]
            switch identifier {
            case .email(let email) where email.utf8.count <= 320 && !email.containsControlCharacter:
                rows = try await sql.raw("SELECT id FROM people WHERE LOWER(email) = \(bind: email.lowercased())").all()
            case .issuerSubject(let issuer, let sub) where trustedIssuers.contains(issuer) && sub.utf8.count <= 255:
                rows = try await sql.raw("SELECT id FROM people WHERE issuer = \(bind: issuer) AND subject = \(bind: sub)").all()
            default: continue
            }
            for row in rows { found.insert(try row.decode(column: "id", as: UUID.self)) }
        }
        return found.sorted { $0.uuidString < $1.uuidString }
    }

    /// The users a subject names: by email (RFC 9493 §3.2.2, compared without case), by
    /// Handover's own `iss_sub` (its user id), or by a trusted provider's `iss_sub` whose `sub`
    /// is an email address; an alias names whoever any of its identifiers names.
    static func users(named subject: SubjectIdentifier, trustedIssuers: Set<String>, handoverIssuer: String, on sql: any SQLDatabase) async throws -> [UUID] {
        var emails: Set<String> = [], ids: Set<UUID> = []
        for identifier in subject.simpleIdentifiers {
            switch identifier {
            case .email(let email): emails.insert(email.lowercased())
            case .issuerSubject(let issuer, let sub):
                if issuer == handoverIssuer, let id = UUID(uuidString: sub) { ids.insert(id) } else if trustedIssuers.contains(issuer), sub.contains("@") {
                    emails.insert(sub.lowercased())
                }
            default: continue
            }
        }
        emails = emails.filter { $0.utf8.count <= 320 && !$0.containsControlCharacter }
        var found: Set<UUID> = []
        if !emails.isEmpty {
            for row in try await sql.raw("SELECT id FROM users WHERE LOWER(email) IN (\(binds: Array(emails)))").all() {
                found.insert(try row.decode(column: "id", as: UUID.self))
            }
        }
        if !ids.isEmpty {
            for row in try await sql.raw("SELECT id FROM users WHERE id IN (\(binds: Array(ids)))").all() {
                found.insert(try row.decode(column: "id", as: UUID.self))
            }
        }
        return Array(found)
    }
}
