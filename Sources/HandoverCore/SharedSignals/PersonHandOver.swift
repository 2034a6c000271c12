import Foundation
import HandoverProtocol
import SessionTokens

/// Ends everything of one person that Handover holds, when their identity provider says so
/// (a SET, a Global Token Revocation request): a logout run on each device they hold (the
/// hand-over ends the device's sessions and checks the custody in), then every other session
/// and Native SSO device secret of theirs, and their dashboard sessions (with the streams they
/// opened) when they are one of the dashboard's people too. Doing it twice changes nothing.
/// Who a subject names, and what they hold, ``SharedSignalsStore`` reads.
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
        let store = SharedSignalsStore(runs.database)
        guard store.speaksSQL else { return Done() }
        let users = try await store.users(named: person, trustedIssuers: Set(trustedIssuers), handoverIssuer: sessions.ring.issuer)
        let admins = try await store.dashboardPeople(named: person, trustedIssuers: Set(trustedIssuers))
        var done = Done(people: Set(users).union(admins).count)
        for admin in admins { done.dashboardSessions += try await dashboard.endAll(of: admin, on: runs.database) }
        guard !users.isEmpty else { return done }
        let held = try await store.devicesHeld(by: users)
        for device in held {
            do {
                done.runs.append(try await runs.createRun(deviceID: device, appIDs: nil, actor: reason).id)
            } catch let error as DomainError where error.kind == .conflict || error.code == "no_apps" {
                continue  // a hand-over is already under way, or there is nothing to log out of
            }
        }
        let secrets = try await store.liveDeviceSecrets(of: users)
        try await sessions.revoke(deviceSecrets: secrets, reason: "identity_provider", on: runs.database)
        let live = try await store.liveSessions(of: users)
        try await sessions.revoke(sessions: live, reason: "identity_provider", on: runs.database)
        done.sessions = live.count + secrets.count
        return done
    }
}
