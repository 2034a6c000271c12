import Foundation
import HandoverCore
import HandoverServer
import Testing

/// API keys as named credentials (issue 39): listed without the key, revoked through the API and
/// the dashboard, refused at once on every instance when revoked or expired, and their last use
/// shown.
@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct APIKeyManagementTests {
    @Test(arguments: TestDatabase.available) func aRevokedKeyGets401OnItsNextRequestOnEveryInstance(database: TestDatabase) async throws {
        let first = try await TestServer.start(database)
        let second = database == .postgres ? try await TestServer.start(database, sharing: first) : first
        let wall = try await first.server.createAPIKey(name: "ward-7 wall screen", scope: .viewer)
        #expect(try await first.request(.GET, "/api/v1/devices", key: wall).status == 200)
        #expect(try await second.request(.GET, "/api/v1/devices", key: wall).status == 200)

        let listed = try await first.request(.GET, "/api/v1/keys", key: first.adminKey)
        #expect(listed.status == 200)
        let entry = try #require(listed.array.first { $0["name"] as? String == "ward-7 wall screen" })
        #expect(entry["scope"] as? String == "viewer" && (entry["prefix"] as? String)?.count == 12 && entry["lastUsedAt"] != nil)
        #expect(!listed.text.contains(wall), "the key itself is never listed")
        #expect(listed.array.allSatisfy { $0["scope"] as? String != "device" })

        let id = try #require(entry["id"] as? String)
        #expect(try await first.request(.DELETE, "/api/v1/keys/\(id)", key: first.adminKey).status == 204)
        #expect(try await first.request(.GET, "/api/v1/devices", key: wall).status == 401)
        #expect(try await second.request(.GET, "/api/v1/devices", key: wall).status == 401, "refused on the other instance too")
        #expect(try await first.request(.DELETE, "/api/v1/keys/\(id)", key: first.adminKey).status == 204, "revoking again changes nothing")
        let revoked = try await first.request(.GET, "/api/v1/keys", key: first.adminKey).array.first { $0["id"] as? String == id }
        #expect(revoked?["revokedAt"] != nil)

        let own = try #require(try await first.request(.GET, "/api/v1/keys", key: first.adminKey).array.first { $0["name"] as? String == "test admin" })
        let refused = try await first.request(.DELETE, "/api/v1/keys/\(own["id"] as? String ?? "")", key: first.adminKey)
        #expect(refused.status == 409 && refused.text.contains("cannot revoke itself"))
        #expect(try await first.request(.DELETE, "/api/v1/keys/\(UUID())", key: first.adminKey).status == 404)
        #expect(try await first.request(.DELETE, "/api/v1/keys/not-an-id", key: first.adminKey).status == 400)
        if database == .postgres { try await second.stop() }
        try await first.stop()
    }

    @Test func anExpiredKeyIsRefused() async throws {
        try await TestServer.with(.sqlite) { test in
            let key = try await APIKeyIssuer.create(name: "contractor", scope: .operator, expiresAt: test.clock.now().addingTimeInterval(3600),
                                                    on: test.server.databases.primary, now: test.clock.now())
            #expect(try await test.request(.GET, "/api/v1/apps", key: key).status == 200)
            test.clock.advance(by: 3600)
            #expect(try await test.request(.GET, "/api/v1/apps", key: key).status == 401)
            let listed = try await test.request(.GET, "/api/v1/keys", key: test.adminKey).array
            #expect(listed.contains { $0["name"] as? String == "contractor" && $0["expiresAt"] != nil })
        }
    }

    @Test func theDashboardListsAndRevokesKeys() async throws {
        try await TestServer.with(.sqlite) { test in
            let wall = try await test.server.createAPIKey(name: "ward-7 wall screen", scope: .viewer)
            let device = try await test.registerDevice()
            let browser = DashboardBrowser(test)
            let csrf = try await browser.signIn(key: test.adminKey)
            let page = try await browser.get("/dashboard/keys")
            #expect(page.status == 200 && page.text.contains("ward-7 wall screen") && page.text.contains("this session&#39;s key")
                    || page.text.contains("this session's key"), "\(page.text)")
            #expect(!page.text.contains(wall) && !page.text.contains(device.key))
            let id = try #require(try await test.request(.GET, "/api/v1/keys", key: test.adminKey).array
                .first { $0["name"] as? String == "ward-7 wall screen" }?["id"] as? String)
            #expect(try await browser.post("/dashboard/keys/\(id)/revoke", [("csrf", "forged")]).status == 403)
            #expect(try await browser.post("/dashboard/keys/\(id)/revoke", [("csrf", csrf)]).status == 303)
            #expect(try await test.request(.GET, "/api/v1/apps", key: wall).status == 401)
            #expect(try await browser.get("/dashboard/keys").text.contains("revoked"))
        }
    }
}
