import Foundation
import Testing

/// Unauthenticated writes and guesses meet one rate-limit mechanism (429 with Retry-After), a
/// foreign page cannot sign a browser in, and the phone sign-in page does not tell who exists.
@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct AbuseLimitTests {
    @Test func aFloodOfSignInNoncesFromOneAddressIsHeldAt429() async throws {
        let rig = try await AppleRig.start(.sqlite)
        defer { Task { try? await rig.stop() } }
        var statuses: [Int: Int] = [:]
        var retryAfter: String?
        for _ in 0..<1000 {
            let reply = try await rig.test.request(.POST, "/auth/apple/nonce")
            statuses[reply.status, default: 0] += 1
            if reply.status == 429 { retryAfter = reply.headers.first(name: "Retry-After") }
        }
        #expect(statuses[200] == 60, "\(statuses)")
        #expect(statuses[429] == 940, "\(statuses)")
        #expect(Int(retryAfter ?? "") ?? 0 > 0)
        // A minute later the address may ask again.
        rig.advance(61)
        #expect(try await rig.test.request(.POST, "/auth/apple/nonce").status == 200)
    }

    @Test func withoutSignInWithAppleANonceIsNotStored() async throws {
        try await TestServer.with(.sqlite) { test in
            let reply = try await test.request(.POST, "/auth/apple/nonce")
            #expect(reply.status == 404)
            #expect(reply.json["error"] as? String == "not_configured")
        }
    }

    @Test func wrongAPIKeysAreSlowedPerAddress() async throws {
        try await TestServer.with(.sqlite) { test in
            for attempt in 1...30 {
                let reply = try await test.request(.GET, "/api/v1/apps", key: "hov_wrong\(attempt)")
                #expect(reply.status == 401, "attempt \(attempt)")
            }
            let blocked = try await test.request(.GET, "/api/v1/apps", key: "hov_wrong31")
            #expect(blocked.status == 429)
            #expect(blocked.json["error"] as? String == "rate_limited")
            #expect(blocked.headers.first(name: "Retry-After") != nil)
            test.clock.advance(by: 61)
            #expect(try await test.request(.GET, "/api/v1/apps", key: test.adminKey).status == 200)
        }
    }

    @Test func wrongEmailLinkTokensAreSlowedPerAddress() async throws {
        try await TestServer.with(.sqlite) { test in
            for attempt in 1...20 {
                let reply = try await test.request(.POST, "/auth/email/redeem", json: ["token": "guess-\(attempt)"])
                #expect(reply.status == 401, "attempt \(attempt): \(reply.text)")
            }
            let blocked = try await test.request(.POST, "/auth/email/redeem", json: ["token": "guess-21"])
            #expect(blocked.status == 429, "\(blocked.text)")
            #expect(blocked.headers.first(name: "Retry-After") != nil)
            let page = try await test.request(.POST, "/auth/email/verify", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                              body: "token=guess-22")
            #expect(page.status == 429)
        }
    }

    @Test func aSignInFormPostedFromAnotherSiteIsRefused() async throws {
        try await TestServer.with(.sqlite) { test in
            let form = [("Content-Type", "application/x-www-form-urlencoded")]
            let foreign = try await test.request(.POST, "/auth/email/verify", headers: form + [("Origin", "https://evil.example")], body: "token=abc")
            #expect(foreign.status == 403, "\(foreign.text)")
            let crossSite = try await test.request(.POST, "/auth/email/verify", headers: form + [("Sec-Fetch-Site", "cross-site")], body: "token=abc")
            #expect(crossSite.status == 403)
            let own = try await test.request(.POST, "/auth/email/verify", headers: form + [("Origin", test.server.publicURL.absoluteString)],
                                             body: "token=abc")
            #expect(own.status == 410, "the own page's post goes through to the token check: \(own.status)")
        }
    }

    @Test func thePhoneSignInPageAnswersAlikeForAnUnknownUser() async throws {
        try await TestServer.with(.sqlite) { test in
            let reply = try await test.request(.POST, "/oob/sign-in", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                               body: "user=nobody-at-all")
            #expect(reply.status == 303, "\(reply.text)")
            let location = try #require(reply.headers.first(name: "Location"))
            let cookie = try #require(reply.headers.first(name: "Set-Cookie")?.split(separator: ";").first.map(String.init))
            let page = try await test.request(.GET, location, headers: [("Cookie", cookie)])
            #expect(page.status == 200)
            #expect(page.text.contains("type this code") && page.text.contains("<svg"), "\(page.text.prefix(400))")
            #expect(!page.text.contains("nobody-at-all has no") && !page.text.contains("No phone"))
        }
    }
}
