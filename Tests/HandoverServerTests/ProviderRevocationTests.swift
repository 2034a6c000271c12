import Foundation
import HandoverCore
@testable import HandoverServer
import HandoverSchema
import Testing

/// A person's dashboard sessions, and the live streams they opened, end when the organisation's
/// provider ends them (issue 63, finding 6): its Back-Channel Logout token, a role removed at the
/// provider, and a security event about the person (Shared Signals).
@Suite(.serialized, .timeLimit(.minutes(5)), .stopsTestServers) struct ProviderRevocationTests {
    /// Finding 6: after the provider's logout token ended a person's sessions, their open
    /// `/dashboard/live` stream kept sending (12 updates, a device registered afterwards included).
    @Test func theProvidersLogoutTokenEndsThePersonsLiveStream() async throws {
        try await AdminSignInTests.withAdminSignedIn { provider, test, browser in
            let live = try await EventStreamReader.dashboard(browser)
            #expect(try await live.next()?.name == "replace")

            let now = Int(Date().timeIntervalSince1970)
            let claims: [String: Any] = ["iss": provider.issuer, "aud": "handover-dashboard", "iat": now, "exp": now + 120, "jti": UUID().uuidString,
                                         "sub": "ada", "events": ["http://schemas.openid.net/event/backchannel-logout": [String: Any]()]]
            let accepted = try await provider.backChannelLogout(to: test.server.baseURL.absoluteString + "/dashboard/backchannel-logout", claims,
                                                               client: test.client)
            #expect(accepted.status == 200, "\(accepted)")
            _ = try await test.registerDevice("registered-after-the-logout")
            let rest = try await live.rest()
            #expect(rest.last?.name == "revoked" && !rest.contains { $0.data.contains("registered-after-the-logout") }, "\(rest)")
        }
    }

    /// A role removed at the provider: the person's next sign-in maps to less than before, and
    /// every session opened with the old grants ends, with its stream; one that maps to no role
    /// at all ends the rest.
    @Test func aRoleRemovedAtTheProviderEndsTheSessionsOpenedWithIt() async throws {
        try await AdminSignInTests.withAdminSignedIn { provider, test, asAdmin in
            let live = try await EventStreamReader.dashboard(asAdmin)
            #expect(try await live.next()?.name == "replace")

            try await provider.setPerson("ada", ["name": "Ada", "groups": ["night-desk"]], client: test.client)
            let asViewer = DashboardBrowser(test)
            #expect(try await AdminSignInTests.signIn(asViewer, at: provider, as: "ada").status == 200)
            #expect(try await live.next(named: "revoked").event != nil, "the admin session's stream ended")
            #expect(try await asAdmin.get("/dashboard/keys").status == 303, "the admin session ended")
            #expect(try await asViewer.get("/dashboard").status == 200, "the viewer session is the one that stays")

            try await provider.setPerson("ada", ["name": "Ada", "groups": ["kitchen"]], client: test.client)
            #expect(try await AdminSignInTests.signIn(DashboardBrowser(test), at: provider, as: "ada").status == 403)
            #expect(try await asViewer.get("/dashboard").status == 303, "no role left: no session left")
        }
    }

    /// A security event about a person (RISC account-disabled) ends their dashboard sessions and
    /// streams as it ends their apps' sessions.
    @Test(arguments: TestDatabase.available)
    func aSecurityEventAboutAPersonEndsTheirDashboardSessionsAndStreams(database: TestDatabase) async throws {
        guard await SharedSignalsPeers.isAvailable() else { return }
        let transmitter = try await SharedSignalsPeers.Transmitter(now: Date())
        defer { transmitter.stop() }
        let (rig, issuer) = try await SharedSignalsReceiverTests.rig(database, transmitter: transmitter)
        let test = rig.test
        // A person of the dashboard, as a sign-in through the provider leaves them, and their session.
        let db = test.server.databases.primary
        let person = Person()
        person.issuer = "https://idp.example.org"
        person.subject = "ada"
        person.email = "Ada@Example.org"
        person.grants = "admin"
        person.firstSeenAt = test.clock.now()
        person.lastSignInAt = test.clock.now()
        try await person.create(on: db)
        let sessions = test.server.revocations.streams
        let (token, _) = try await DashboardSessions(limits: SessionLimits(), revocations: test.server.revocations, now: { test.clock.now() })
            .create(for: .person(person, idToken: nil, providerSID: nil), permissions: Permissions([RoleGrant(role: .admin)]), on: db)
        let live = try await EventStreamReader(test, "/dashboard/live", headers: [("Cookie", "handover_session=\(token)")])
        #expect(live.status == 200)
        #expect(try await live.next()?.name == "replace")
        #expect(sessions.count == 1)

        let iat = Int(test.clock.now().timeIntervalSince1970)
        let set = try await transmitter.control(test, "set", [
            "event_type": SharedSignalsPeers.risc + "account-disabled", "event": ["reason": "hijacking"],
            "sub_id": ["format": "email", "email": "ada@example.org"], "aud": issuer, "iat": iat,
        ])
        let push = try await transmitter.control(test, "push", ["url": issuer + "/ssf/push", "authorization": SharedSignalsReceiverTests.pushSecret,
                                                                "set": set.json["set"] ?? ""])
        #expect(push.json["status"] as? Int == 202, "\(push.text)")
        #expect(try await live.rest().last?.name == "revoked")
        #expect(try await test.request(.GET, "/dashboard", headers: [("Cookie", "handover_session=\(token)")]).status == 303)
        try await rig.stop()
    }
}
