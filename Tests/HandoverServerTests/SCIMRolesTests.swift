import Foundation
import HandoverServer
import Testing
import Vapor

/// Groups to roles (issue 67): a person's SCIM groups feed the role map like the ID token's
/// `groups` claim, and a person's dashboard role follows the directory between sign-ins: a
/// group taken away ends their open sessions at once. Against oidc-provider-mock.
@Suite(.serialized, .timeLimit(.minutes(5)), .stopsTestServers) struct SCIMRolesTests {
    @Test func theDirectorysGroupsGiveARoleAndTakingOneAwayEndsTheSessions() async throws {
        guard await IdentityProviderPeer.isAvailable() else { return }
        let provider = try await IdentityProviderPeer.start()
        defer { provider.stop() }
        let settings = try AdminSignInSettings(issuer: provider.issuer, clientID: "handover-dashboard", clientSecret: "s3cret",
                                               roleMap: AdminSignInTests.roleMap, allowsKeySignIn: true)
        try await TestServer.with(.sqlite, clock: ManualServerClock(Date()), configure: {
            $0.adminSignIn = settings
            $0.directory.tokens = [SCIMVendorReplayTests.token]
        }) { test in
            // At the provider, Grace is in no group Handover maps.
            try await provider.setPerson("grace", ["name": "Grace Hopper", "email": "grace@hospital.example", "groups": ["cafeteria"]], client: test.client)
            let user = try await SCIMVendorReplayTests.scim(test, .POST, "/Users", """
                {"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"grace@hospital.example","displayName":"Grace Hopper"}
                """)
            let userID = try #require(user.json["id"] as? String)
            let group = try await SCIMVendorReplayTests.scim(test, .POST, "/Groups", """
                {"schemas":["urn:ietf:params:scim:schemas:core:2.0:Group"],"displayName":"ward-leads","members":[{"value":"\(userID)"}]}
                """)
            #expect(group.status == 201, "\(group.text)")
            let groupID = try #require(group.json["id"] as? String)

            // The directory's group maps to operator: she signs in with it.
            let browser = DashboardBrowser(test)
            let signedIn = try await AdminSignInTests.signIn(browser, at: provider, as: "grace")
            #expect(signedIn.status == 200, "\(signedIn.text.suffix(800))")
            #expect(try await browser.get("/dashboard").status == 200)

            // The directory takes the group away: her session ends at once, and the history says so.
            let removed = try await SCIMVendorReplayTests.scim(test, .PATCH, "/Groups/\(groupID)", """
                {"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"remove","path":"members[value eq \\"\(userID)\\"]"}]}
                """)
            #expect(removed.status == 200, "\(removed.text)")
            #expect(try await browser.get("/dashboard").status == 303, "the session ended")
            // With no role from the provider nor the directory, her next sign-in is refused.
            let refused = try await AdminSignInTests.signIn(browser, at: provider, as: "grace")
            #expect(refused.text.contains("maps to no Handover role"), "\(refused.text.suffix(800))")
            let admin = DashboardBrowser(test)
            _ = try await admin.signIn(key: test.adminKey)
            let people = try await admin.get("/dashboard/people")
            #expect(people.text.contains("the directory&#39;s groups now give no role") || people.text.contains("the directory's groups now give no role"),
                    "\(people.text.suffix(2000))")
        }
    }
}
