import AsyncHTTPClient
import Foundation
import HandoverServer
import Testing

/// People sign in to the dashboard through the organisation's OpenID Connect provider
/// (issue 39), against oidc-provider-mock: the authorization code flow with PKCE, `state` and
/// `nonce` (OpenID Connect Core 1.0 §3.1; RFC 7636), the role map, the roles on forms and keys,
/// RP-initiated logout and Back-Channel Logout 1.0 received from the provider.
@Suite(.serialized) struct AdminSignInTests {
    static let roleMap = "handover-admins=admin,ward-leads=operator,night-desk=viewer,icu-leads=operator@ICU"

    /// A server whose dashboard signs people in at `provider`, on a clock at the wall's time
    /// (the provider's tokens carry real `iat` and `exp`).
    static func withServer(_ provider: IdentityProviderPeer, allowKeySignIn: Bool = false,
                           _ body: (TestServer) async throws -> Void) async throws {
        let settings = try AdminSignInSettings(issuer: provider.issuer, clientID: "handover-dashboard", clientSecret: "s3cret",
                                               roleMap: roleMap, allowsKeySignIn: allowKeySignIn)
        try await TestServer.with(.sqlite, clock: ManualServerClock(Date()), configure: { $0.adminSignIn = settings }, body)
    }

    /// Ada, an admin at the provider, signed in to the dashboard of a server that trusts it: the
    /// provider, the server and Ada's browser. Returns without calling `body` (having said why)
    /// where oidc-provider-mock is not installed.
    static func withAdminSignedIn(_ body: (IdentityProviderPeer, TestServer, DashboardBrowser) async throws -> Void) async throws {
        guard await IdentityProviderPeer.isAvailable() else { return }
        let provider = try await IdentityProviderPeer.start()
        defer { provider.stop() }
        try await withServer(provider) { test in
            try await provider.setPerson("ada", ["name": "Ada", "groups": ["handover-admins"]], client: test.client)
            let browser = DashboardBrowser(test)
            #expect(try await signIn(browser, at: provider, as: "ada").status == 200)
            try await body(provider, test, browser)
        }
    }

    /// Signs `subject` in through the provider; returns the browser's last page (the callback's).
    static func signIn(_ browser: DashboardBrowser, at provider: IdentityProviderPeer, as subject: String) async throws -> TestServer.Reply {
        // The provider stamps its tokens with the wall's time: the server's clock catches up with
        // the wall first, so that on a slow run (a whole suite on two cores once took 100 s to get
        // here) a fresh token does not look issued in the future.
        let behind = Date().timeIntervalSince(browser.test.clock.now())
        if behind > 0 { browser.test.clock.advance(by: behind) }
        let begin = try await browser.get("/dashboard/sign-in/provider")
        #expect(begin.status == 303)
        let authorization = try #require(begin.headers.first(name: "Location"))
        let back = try await provider.authorize(authorization, as: subject, client: browser.test.client)
        let base = browser.test.server.baseURL.absoluteString
        #expect(back.hasPrefix(base + "/dashboard/sign-in/callback?"), "\(back)")
        return try await browser.get(String(back.dropFirst(base.count)))
    }

    @Test func anOperatorSignsInActsOnADeviceAndTheHistoryNamesThem() async throws {
        guard await IdentityProviderPeer.isAvailable() else { return }
        let provider = try await IdentityProviderPeer.start()
        defer { provider.stop() }
        try await Self.withServer(provider) { test in
            try await provider.setPerson("ada", ["name": "Ada Lovelace", "email": "ada@hospital.example", "groups": ["ward-leads"]],
                                         client: test.client)
            let mail = try await test.registerTarget("Mail", deadline: 5, maxReissues: 0)
            let device = try await test.registerDevice("ward-9-phone-1")
            _ = try await test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", json: ["apps": [mail]], key: device.key)
            test.clock.advance(by: 6)
            try await test.server.fireDeadlines()

            let browser = DashboardBrowser(test)
            // The authorization request: code flow, PKCE S256, state and nonce (Core §3.1.2.1, RFC 7636 §4.3).
            let begin = try await browser.get("/dashboard/sign-in/provider")
            let location = try #require(begin.headers.first(name: "Location"))
            let query = Dictionary(uniqueKeysWithValues: (URLComponents(string: location)?.queryItems ?? []).map { ($0.name, $0.value ?? "") })
            #expect(location.hasPrefix(provider.issuer + "/oauth2/authorize?"))
            #expect(query["response_type"] == "code" && query["client_id"] == "handover-dashboard" && query["code_challenge_method"] == "S256")
            #expect((query["state"]?.count ?? 0) >= 43 && (query["nonce"]?.count ?? 0) >= 43 && (query["code_challenge"]?.count ?? 0) == 43)
            #expect(query["scope"] == "openid profile email")

            let landed = try await Self.signIn(browser, at: provider, as: "ada")
            #expect(landed.status == 200 && landed.text.contains("Ada Lovelace"), "\(landed.text)")
            let overview = try await browser.get("/dashboard")
            #expect(overview.status == 200)
            let csrf = try #require(DashboardBrowser.csrf(in: overview.text))

            let done = try await browser.post("/dashboard/devices/\(device.id)/back-in-service", [("csrf", csrf), ("note", "Checked at the desk")])
            #expect(done.status == 303, "\(done.text)")
            let page = try await browser.get("/dashboard/devices/\(device.id)")
            #expect(page.text.contains("Ada Lovelace &lt;ada@hospital.example&gt; on the dashboard"), "\(page.text)")
            // The registry and the people page need admin.
            let app = try await browser.post("/dashboard/apps", [("csrf", csrf), ("name", "Notes")])
            #expect(app.status == 403 && app.text.contains("needs admin"), "\(app.text)")
            #expect(try await browser.get("/dashboard/people").status == 403)
        }
    }

    @Test func anIDTokenWithAnotherNonceIsRefusedThePageSaysWhyAndTheHistoryKeepsIt() async throws {
        guard await IdentityProviderPeer.isAvailable() else { return }
        let provider = try await IdentityProviderPeer.start()
        defer { provider.stop() }
        try await Self.withServer(provider, allowKeySignIn: true) { test in
            try await provider.setPerson("mallory", ["name": "Mallory", "groups": ["handover-admins"]], client: test.client)
            let browser = DashboardBrowser(test)
            let begin = try await browser.get("/dashboard/sign-in/provider")
            let location = try #require(begin.headers.first(name: "Location"))
            var authorization = try #require(URLComponents(string: location))
            // The provider is asked for another nonce than the one this sign-in stored: its ID
            // token then carries a nonce the server never sent (Core §3.1.3.7 item 11).
            authorization.queryItems = authorization.queryItems?.map { $0.name == "nonce" ? URLQueryItem(name: "nonce", value: "replayed") : $0 }
            let url = try #require(authorization.url?.absoluteString)
            let back = try await provider.authorize(url, as: "mallory", client: test.client)
            let base = test.server.baseURL.absoluteString
            let refused = try await browser.get(String(back.dropFirst(base.count)))
            #expect(refused.status == 403 && refused.text.contains("nonce does not match"), "\(refused.text)")
            #expect(try await browser.get("/dashboard").status == 303)
            let admin = DashboardBrowser(test)
            _ = try await admin.signIn(key: test.adminKey)
            let people = try await admin.get("/dashboard/people")
            #expect(people.text.contains("nonce does not match"), "the history records the failed sign-in")
        }
    }

    @Test func anICUOperatorSeesOnlyICUDevicesAndActsOnThemAlone() async throws {
        guard await IdentityProviderPeer.isAvailable() else { return }
        let provider = try await IdentityProviderPeer.start()
        defer { provider.stop() }
        try await Self.withServer(provider) { test in
            try await provider.setPerson("iris", ["name": "Iris Nurse", "email": "iris@hospital.example", "groups": ["icu-leads"]],
                                         client: test.client)
            let mail = try await test.registerTarget("Mail", deadline: 5, maxReissues: 0)
            let icu = try await test.registerDevice("icu-phone-1", site: "ICU")
            let icuCalm = try await test.registerDevice("icu-phone-2", site: "ICU")
            let ward = try await test.registerDevice("ward-3-phone-1", site: "Ward-3")
            let unsited = try await test.registerDevice("spare-phone")
            for device in [icu, ward] {
                _ = try await test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", json: ["apps": [mail]], key: device.key)
            }
            test.clock.advance(by: 6)
            try await test.server.fireDeadlines()

            let browser = DashboardBrowser(test)
            #expect(try await Self.signIn(browser, at: provider, as: "iris").status == 200)
            let overview = try await browser.get("/dashboard")
            #expect(overview.text.contains("Needs attention (1)") && overview.text.contains("icu-phone-1") && overview.text.contains("icu-phone-2"))
            #expect(!overview.text.contains("ward-3-phone-1") && !overview.text.contains("spare-phone"), "only ICU's devices")
            let search = try await browser.get("/dashboard/devices?q=phone")
            #expect(search.text.contains("2 devices match") && !search.text.contains("ward-3"), "\(search.text)")
            #expect(try await browser.get("/dashboard/devices/\(ward.id)").status == 404, "another site's device is not revealed")
            #expect(try await browser.get("/dashboard/devices/\(unsited.id)").status == 404)
            #expect(try await browser.get("/dashboard/devices/\(icuCalm.id)").status == 200)
            let csrf = try #require(DashboardBrowser.csrf(in: overview.text))
            let other = try await browser.post("/dashboard/devices/\(ward.id)/back-in-service", [("csrf", csrf), ("note", "x")])
            #expect(other.status == 404)
            let done = try await browser.post("/dashboard/devices/\(icu.id)/back-in-service", [("csrf", csrf), ("note", "Checked in the ICU")])
            #expect(done.status == 303, "\(done.text)")
            let page = try await browser.get("/dashboard/devices/\(icu.id)")
            #expect(page.text.contains("Iris Nurse &lt;iris@hospital.example&gt; on the dashboard"))
            let registry = try await browser.post("/dashboard/apps", [("csrf", csrf), ("name", "Notes")])
            #expect(registry.status == 403)
            let runs = try await test.request(.GET, "/api/v1/devices/\(ward.id)", key: test.adminKey)
            let wardRun = try #require(runs.json["lastRunID"] as? String)
            #expect(try await browser.get("/dashboard/runs/\(wardRun)").status == 404, "another site's run is not revealed")
            #expect(try await browser.get("/dashboard/scorecards").status == 200)
        }
    }

    /// Each forged ID token goes through the whole sign-in: the page says why, the history keeps
    /// it, and no session is made (Core §3.1.3.7).
    @Test func forgedIDTokensAreRefusedOnThePageAndInTheHistory() async throws {
        guard await IdentityProviderPeer.isAvailable() else { return }
        let provider = try await IdentityProviderPeer.start()
        defer { provider.stop() }
        try await Self.withServer(provider, allowKeySignIn: true) { test in
            try await provider.setPerson("mallory", ["name": "Mallory", "groups": ["handover-admins"]], client: test.client)
            let now = Int(Date().timeIntervalSince1970)
            let forgeries: [(claims: [String: Any], header: [String: Any], otherKey: Bool, says: String)] = [
                (["aud": "another-app"], [:], false, "audience (aud)"),
                (["iss": "https://evil.example"], [:], false, "issuer (iss)"),
                (["exp": now - 3600, "iat": now - 4000], [:], false, "expired (exp)"),
                (["nonce": "replayed"], [:], false, "nonce does not match"),
                ([:], ["alg": "none"], false, "algorithm is &#39;none&#39;"),
                ([:], [:], true, "signature does not verify"),
            ]
            for forgery in forgeries {
                try await provider.forgeNextIDToken(forgery.claims, header: forgery.header, otherKey: forgery.otherKey, client: test.client)
                let browser = DashboardBrowser(test)
                let refused = try await Self.signIn(browser, at: provider, as: "mallory")
                #expect(refused.status == 403 && (refused.text.contains(forgery.says) || refused.text.contains(forgery.says.replacingOccurrences(of: "&#39;", with: "'"))),
                        "\(forgery.says): \(refused.text.prefix(2000))")
                #expect(try await browser.get("/dashboard").status == 303, "\(forgery.says): no session")
            }
            let admin = DashboardBrowser(test)
            _ = try await admin.signIn(key: test.adminKey)
            let history = try await admin.get("/dashboard/people")
            for forgery in forgeries {
                #expect(history.text.contains(forgery.says) || history.text.contains(forgery.says.replacingOccurrences(of: "&#39;", with: "'")),
                        "the history records: \(forgery.says)")
            }
        }
    }

    @Test func aViewerIsRefusedEveryForm() async throws {
        guard await IdentityProviderPeer.isAvailable() else { return }
        let provider = try await IdentityProviderPeer.start()
        defer { provider.stop() }
        try await Self.withServer(provider) { test in
            try await provider.setPerson("vic", ["name": "Vic", "groups": ["night-desk"]], client: test.client)
            let device = try await test.registerDevice("ward-9-phone-2")
            let browser = DashboardBrowser(test)
            #expect(try await Self.signIn(browser, at: provider, as: "vic").status == 200)
            let overview = try await browser.get("/dashboard")
            #expect(overview.status == 200 && !overview.text.contains("/dashboard/people"))
            let csrf = try #require(DashboardBrowser.csrf(in: overview.text))
            for path in ["/dashboard/devices/\(device.id)/back-in-service", "/dashboard/devices/\(device.id)/mdm-commands/\(UUID())/confirm-erase",
                         "/dashboard/apps", "/tester", "/tester/\(UUID())/rounds/1/start"] {
                let reply = try await browser.post(path, [("csrf", csrf), ("note", "x")])
                #expect(reply.status == 403 && reply.text.contains("needs"), "\(path): \(reply.status)")
            }
        }
    }

    @Test func aPersonWhoseGroupsMapToNoRoleIsRefusedAndTheHistoryKeepsIt() async throws {
        guard await IdentityProviderPeer.isAvailable() else { return }
        let provider = try await IdentityProviderPeer.start()
        defer { provider.stop() }
        try await Self.withServer(provider, allowKeySignIn: true) { test in
            try await provider.setPerson("eve", ["name": "Eve", "groups": ["kitchen"]], client: test.client)
            let browser = DashboardBrowser(test)
            let refused = try await Self.signIn(browser, at: provider, as: "eve")
            #expect(refused.status == 403 && refused.text.contains("maps to no Handover role") && refused.text.contains("&#39;kitchen&#39;")
                    || refused.text.contains("'kitchen'"), "\(refused.text)")
            #expect(try await browser.get("/dashboard").status == 303, "no session was made")
            // A callback whose state this browser did not start is refused too.
            let forged = try await browser.get("/dashboard/sign-in/callback?code=x&state=\(String(repeating: "a", count: 43))")
            #expect(forged.status == 403)

            let admin = DashboardBrowser(test)
            _ = try await admin.signIn(key: test.adminKey)  // break-glass, allowed here
            let people = try await admin.get("/dashboard/people")
            #expect(people.status == 200 && people.text.contains("refused") && people.text.contains("maps to no Handover role"))
            #expect(people.text.contains("break glass"), "the key sign-in is recorded as break-glass")
        }
    }

    @Test func adminKeysOpenTheDashboardOnlyAsBreakGlass() async throws {
        guard await IdentityProviderPeer.isAvailable() else { return }
        let provider = try await IdentityProviderPeer.start()
        defer { provider.stop() }
        try await Self.withServer(provider) { test in
            let browser = DashboardBrowser(test)
            let form = try await browser.get("/dashboard/sign-in")
            #expect(form.text.contains("/dashboard/sign-in/provider") && !form.text.contains("Admin key"))
            let refused = try await browser.post("/dashboard/sign-in", [("csrf", DashboardBrowser.csrf(in: form.text) ?? ""), ("key", test.adminKey)])
            #expect(refused.status == 403 && refused.text.contains("--allow-key-sign-in"))
            // The API still takes the key.
            #expect(try await test.request(.GET, "/api/v1/apps", key: test.adminKey).status == 200)
        }
    }

    @Test func theProvidersLogoutTokenEndsThePersonsSessions() async throws {
        guard await IdentityProviderPeer.isAvailable() else { return }
        let provider = try await IdentityProviderPeer.start()
        defer { provider.stop() }
        try await Self.withServer(provider) { test in
            try await provider.setPerson("ada", ["name": "Ada", "groups": ["handover-admins"]], client: test.client)
            let first = DashboardBrowser(test), second = DashboardBrowser(test)
            #expect(try await Self.signIn(first, at: provider, as: "ada").status == 200)
            #expect(try await Self.signIn(second, at: provider, as: "ada").status == 200)
            #expect(try await first.get("/dashboard").status == 200)
            #expect(try await second.get("/dashboard").status == 200)

            let uri = test.server.baseURL.absoluteString + "/dashboard/backchannel-logout"
            let now = Int(Date().timeIntervalSince1970)
            let event = ["http://schemas.openid.net/event/backchannel-logout": [String: Any]()]
            var claims: [String: Any] = ["iss": provider.issuer, "aud": "handover-dashboard", "iat": now, "exp": now + 120,
                                         "jti": UUID().uuidString, "sub": "ada", "events": event]
            // Back-Channel Logout 1.0 §2.6: a logout token with a nonce is refused, 400 (§2.8).
            claims["nonce"] = "n"
            let withNonce = try await provider.backChannelLogout(to: uri, claims, client: test.client)
            #expect(withNonce.status == 400 && withNonce.body.contains("invalid_request"), "\(withNonce)")
            #expect(try await first.get("/dashboard").status == 200)
            claims["nonce"] = nil
            let wrongType = try await provider.backChannelLogout(to: uri, claims, typ: "JWT+other", client: test.client)
            #expect(wrongType.status == 400)

            let accepted = try await provider.backChannelLogout(to: uri, claims, client: test.client)
            #expect(accepted.status == 200, "\(accepted)")
            #expect(try await first.get("/dashboard").status == 303)
            #expect(try await second.get("/dashboard").status == 303)
        }
    }

    @Test func signingOutEndsTheProvidersSessionToo() async throws {
        try await AdminSignInTests.withAdminSignedIn { provider, test, browser in
            let page = try await browser.get("/dashboard")
            let csrf = try #require(DashboardBrowser.csrf(in: page.text))
            let out = try await browser.post("/dashboard/sign-out", [("csrf", csrf)])
            let location = try #require(out.headers.first(name: "Location"))
            // RP-Initiated Logout 1.0 §2: the end_session_endpoint with id_token_hint and where to come back.
            #expect(location.hasPrefix(provider.issuer + "/oauth2/end_session?") && location.contains("id_token_hint=")
                    && location.contains("post_logout_redirect_uri="), "\(location)")
            #expect(try await browser.get("/dashboard").status == 303)
        }
    }

    @Test func aSessionEndsAfterItsIdleTimeout() async throws {
        try await AdminSignInTests.withAdminSignedIn { (_, test, browser) async throws in
            test.clock.advance(by: 14 * 60)
            #expect(try await browser.get("/dashboard").status == 200, "14 minutes idle: still signed in")
            test.clock.advance(by: 14 * 60)
            #expect(try await browser.get("/dashboard").status == 200, "each request starts the idle time again")
            test.clock.advance(by: 15 * 60 + 1)
            #expect(try await browser.get("/dashboard").status == 303, "past 15 minutes idle")
        }
    }
}
