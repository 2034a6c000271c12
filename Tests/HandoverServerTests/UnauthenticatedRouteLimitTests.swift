import Foundation
@testable import HandoverCore
@testable import HandoverServer
import HandoverSchema
import NIOHTTP1
import SQLKit
import Testing

/// Issue 63, finding 10: every route a stranger can make this server work for goes through the one
/// rate-limit mechanism (``RateLimits``): dashboard sign-in starts, refused sign-in callbacks,
/// refused back-channel logout tokens, wrong admin keys at the dashboard's sign-in, and wrong
/// bearers at the Shared Signals transmitter's endpoints. The wrong and the unauthenticated are
/// throttled (429 with `Retry-After`); a valid credential from the same address never is.
@Suite(.serialized, .timeLimit(.minutes(5)), .stopsTestServers) struct UnauthenticatedRouteLimitTests {
    /// A server whose dashboard signs people in at `issuer` (nothing need answer there for the
    /// refusals that are decided before the provider is asked).
    static func withProvider(_ issuer: String, _ body: (TestServer) async throws -> Void) async throws {
        let settings = try AdminSignInSettings(issuer: issuer, clientID: "handover-dashboard", clientSecret: "s3cret",
                                               roleMap: AdminSignInTests.roleMap, allowsKeySignIn: false)
        try await TestServer.with(.sqlite, clock: ManualServerClock(Date()), configure: { $0.adminSignIn = settings }, body)
    }

    static func count(_ test: TestServer, _ table: String) async throws -> Int {
        let sql = try #require(test.server.databases.primary as? any SQLDatabase)
        return try await sql.raw("SELECT COUNT(*) AS n FROM \(unsafeRaw: table)").first()?.decode(column: "n", as: Int.self) ?? -1
    }

    /// Each start stores a row (its `state`, `nonce` and PKCE verifier): 150 starts once stored 150.
    @Test func signInStartsAreLimitedPerAddressAndTheirRowsAreBounded() async throws {
        guard await IdentityProviderPeer.isAvailable() else { return }
        let provider = try await IdentityProviderPeer.start()
        defer { provider.stop() }
        try await Self.withProvider(provider.issuer) { test in
            var statuses: [Int: Int] = [:]
            var retryAfter: String?
            for _ in 0..<150 {
                let reply = try await test.request(.GET, "/dashboard/sign-in/provider")
                statuses[reply.status, default: 0] += 1
                if reply.status == 429 { retryAfter = reply.headers.first(name: "Retry-After") }
            }
            #expect(statuses == [303: 30, 429: 120], "\(statuses)")
            #expect(Int(retryAfter ?? "") ?? 0 > 0)
            #expect(try await Self.count(test, "admin_sign_in_attempts") == 30)
            // A minute later the address may start again; attempts past their 10 minutes are gone.
            test.clock.advance(by: 11 * 60)
            #expect(try await test.request(.GET, "/dashboard/sign-in/provider").status == 303)
            #expect(try await Self.count(test, "admin_sign_in_attempts") == 1)
        }
    }

    /// However many addresses start sign-ins, at most ``AdminSignIn/maximumAttempts`` are kept at
    /// once (10,000 by default); past it a start is refused (503 on the page) until older ones
    /// finish or expire.
    @Test func signInsInProgressAreBoundedWhateverTheAddresses() async throws {
        try await Self.withProvider("http://127.0.0.1:9") { test in
            let clock = test.clock
            for index in 0..<5 {
                let attempt = AdminSignInAttempt()
                attempt.stateHash = "h\(index)"
                attempt.nonce = "n"
                attempt.codeVerifier = "v"
                attempt.createdAt = clock.now()
                attempt.expiresAt = clock.now().addingTimeInterval(AdminSignIn.attemptLifetime)
                try await attempt.create(on: test.server.databases.primary)
            }
            let settings = try AdminSignInSettings(issuer: "http://127.0.0.1:9", clientID: "c", clientSecret: "s", roleMap: AdminSignInTests.roleMap)
            let signIn = AdminSignIn(provider: OrganisationProvider(settings: settings, http: test.server.outboundClient, now: { clock.now() }),
                                     now: { clock.now() }, maximumAttempts: 5)
            await #expect(throws: AdminSignIn.Busy.self) { _ = try await signIn.begin(redirectURI: "http://x/cb", on: test.server.databases.primary) }
            #expect(try await Self.count(test, "admin_sign_in_attempts") == 5)
            // Ten minutes on they have expired: the start goes on to the provider (unreachable here).
            clock.advance(by: AdminSignIn.attemptLifetime + 1)
            await #expect(throws: AdminSignIn.Refusal.self) { _ = try await signIn.begin(redirectURI: "http://x/cb", on: test.server.databases.primary) }
            #expect(try await Self.count(test, "admin_sign_in_attempts") == 0)
        }
    }

    /// A cross-site `<img src=…/dashboard/sign-in/callback?state=x>` is a refused callback: 30 a
    /// minute from an address, then 429.
    @Test func refusedSignInCallbacksAreLimitedPerAddress() async throws {
        try await Self.withProvider("http://127.0.0.1:9") { test in
            for attempt in 1...30 {
                #expect(try await test.request(.GET, "/dashboard/sign-in/callback?state=x\(attempt)&code=y").status == 403, "attempt \(attempt)")
            }
            let limited = try await test.request(.GET, "/dashboard/sign-in/callback?state=x31&code=y")
            #expect(limited.status == 429 && Int(limited.headers.first(name: "Retry-After") ?? "") ?? 0 > 0, "\(limited.status)")
        }
    }

    /// Refused logout tokens slow their sender; the provider's valid one from the same address is
    /// still taken (Back-Channel Logout 1.0 §2.8: 200 when the logout succeeded).
    @Test func refusedLogoutTokensAreLimitedButTheProvidersValidOneIsTaken() async throws {
        try await AdminSignInTests.withAdminSignedIn { provider, test, browser in
            let form = [("Content-Type", "application/x-www-form-urlencoded")]
            for attempt in 1...30 {
                let refused = try await test.request(.POST, "/dashboard/backchannel-logout", headers: form, body: "logout_token=forged.\(attempt).x")
                #expect(refused.status == 400, "attempt \(attempt): \(refused.text)")
            }
            let limited = try await test.request(.POST, "/dashboard/backchannel-logout", headers: form, body: "logout_token=forged.31.x")
            #expect(limited.status == 429 && Int(limited.headers.first(name: "Retry-After") ?? "") ?? 0 > 0, "\(limited.status) \(limited.text)")
            let now = Int(Date().timeIntervalSince1970)
            let claims: [String: Any] = ["iss": provider.issuer, "aud": "handover-dashboard", "iat": now, "exp": now + 120, "jti": UUID().uuidString,
                                         "sub": "ada", "events": ["http://schemas.openid.net/event/backchannel-logout": [String: Any]()]]
            let accepted = try await provider.backChannelLogout(to: test.server.baseURL.absoluteString + "/dashboard/backchannel-logout", claims,
                                                                client: test.client)
            #expect(accepted.status == 200, "\(accepted)")
            #expect(try await browser.get("/dashboard").status == 303, "the person's session ended")
        }
    }

    @Test func wrongAdminKeysAtTheDashboardAreLimitedButTheRightKeySignsIn() async throws {
        try await TestServer.with(.sqlite) { test in
            let browser = DashboardBrowser(test)
            // Each answer is the form again, with a new CSRF token (a double-submit cookie).
            var csrf = DashboardBrowser.csrf(in: try await browser.get("/dashboard/sign-in").text) ?? ""
            for attempt in 1...30 {
                let wrong = try await browser.post("/dashboard/sign-in", [("csrf", csrf), ("key", "hov_guess\(attempt)")])
                #expect(wrong.status == 401, "attempt \(attempt): \(wrong.status)")
                csrf = DashboardBrowser.csrf(in: wrong.text) ?? ""
            }
            let limited = try await browser.post("/dashboard/sign-in", [("csrf", csrf), ("key", "hov_guess31")])
            #expect(limited.status == 429 && Int(limited.headers.first(name: "Retry-After") ?? "") ?? 0 > 0, "\(limited.status)")
            #expect(limited.text.contains("Too many"), "the page says why")
            csrf = DashboardBrowser.csrf(in: limited.text) ?? ""
            let right = try await browser.post("/dashboard/sign-in", [("csrf", csrf), ("key", test.adminKey)])
            #expect(right.status == 303, "\(right.status) \(right.text)")
        }
    }

    /// SSF 1.0 §8.1 endpoints take a client-credentials bearer (RFC 6750 §2.1): wrong ones are
    /// counted at every one of them, and the right one is served.
    @Test func wrongBearersAtTheSharedSignalsEndpointsAreLimitedButTheRightOneIsServed() async throws {
        let (rig, _) = try await OpenIDConnectTests.rig()
        let client = try await OpenIDConnectTests.register(rig.test, ["client_name": "SIEM"])
        let token = try await OpenIDConnectTests.form(rig.test, "/oauth/token", ["grant_type": "client_credentials"], basic: client)
        let bearer = try #require(token.json["access_token"] as? String, "\(token.text)")
        let endpoints: [(HTTPMethod, String)] = [(.GET, "/ssf/stream"), (.POST, "/ssf/stream"), (.PATCH, "/ssf/stream"), (.PUT, "/ssf/stream"),
                                                 (.DELETE, "/ssf/stream?stream_id=x"), (.GET, "/ssf/status?stream_id=x"), (.POST, "/ssf/status"),
                                                 (.POST, "/ssf/subjects:add"), (.POST, "/ssf/subjects:remove"), (.POST, "/ssf/verify"),
                                                 (.POST, "/ssf/poll/x")]
        for attempt in 0..<30 {
            let (method, path) = endpoints[attempt % endpoints.count]
            let wrong = try await rig.test.request(method, path, key: "hcc_guess\(attempt)", headers: [("Content-Type", "application/json")], body: "{}")
            #expect(wrong.status == 401, "\(method) \(path): \(wrong.status)")
        }
        for (method, path) in endpoints {
            let limited = try await rig.test.request(method, path, key: "hcc_guess", headers: [("Content-Type", "application/json")], body: "{}")
            #expect(limited.status == 429 && Int(limited.headers.first(name: "Retry-After") ?? "") ?? 0 > 0, "\(method) \(path): \(limited.status)")
        }
        let streams = try await rig.test.request(.GET, "/ssf/stream", key: bearer)
        #expect(streams.status == 200, "\(streams.status) \(streams.text)")
        try await rig.stop()
    }
}
