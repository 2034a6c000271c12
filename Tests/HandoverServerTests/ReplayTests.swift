import Foundation
import HandoverServer
import Testing

/// Issue 63, finding 8: a token the identity provider signed acts once.
///
/// - Global Token Revocation (draft-parecki-oauth-global-token-revocation §3.2: the request is
///   authenticated, here by a bearer JWT the provider signed; §6.1: that credential narrowly
///   scoped, "a single scope that enables it to perform the revocation request"; §3.4.2: 401 for
///   invalid authentication, 403 for a missing scope): a bearer acts once (`iss` + `jti`
///   remembered until its `exp`), lives at most 10 minutes, names this server as `aud`, and
///   carries the scope `global_token_revocation`.
/// - Back-Channel Logout 1.0 §2.6 (a logout token's `jti` is REQUIRED by §2.4, and the receiver
///   "MAY verify that the same jti value has not been recently received"): the same logout token
///   posted again, after the person signed back in, does not end the new session (§2.8: 400).
@Suite("Replays of the provider's tokens", .serialized, .timeLimit(.minutes(5)), .stopsTestServers)
struct ReplayTests {
    static var scope: [String: Any] { ["scope": "global_token_revocation"] }

    /// Two people, each signed in on a device they hold.
    static func twoPeople(_ rig: AppleRig) async throws -> [(email: String, accessToken: String)] {
        _ = try await rig.test.registerTarget("Mail", deadline: 5, maxReissues: 0)
        var people: [(String, String)] = []
        for (index, email) in ["ward7@example.com", "ward8@example.com"].enumerated() {
            let device = try await rig.test.registerDevice("ward-7-phone-\(index)")
            let grant = try await rig.signIn(sub: "00123\(index).apple-user", email: email, extra: ["deviceID": device.id])
            people.append((email, grant["accessToken"] as? String ?? ""))
        }
        return people
    }

    @Test(arguments: TestDatabase.available) func aGlobalTokenRevocationBearerActsOnce(database: TestDatabase) async throws {
        guard await SharedSignalsPeers.isAvailable() else { return }
        let transmitter = try await SharedSignalsPeers.Transmitter(now: Date())
        defer { transmitter.stop() }
        let (rig, issuer) = try await SharedSignalsReceiverTests.rig(database, transmitter: transmitter)
        let people = try await Self.twoPeople(rig)
        let url = issuer + "/oauth/global-token-revocation"
        let now = Int(rig.test.clock.now().timeIntervalSince1970)
        let first = try await transmitter.control(rig.test, "gtr", ["url": url, "sub_id": ["format": "email", "email": people[0].email],
                                                                    "iat": now, "exp": now + 300, "claims": Self.scope])
        #expect(first.json["status"] as? Int == 204, "\(first.text)")
        #expect(try await rig.me(people[0].accessToken).status == 401)
        // The same bearer, for someone else: refused (401), their session intact.
        let replay = try await transmitter.control(rig.test, "gtr", ["url": url, "sub_id": ["format": "email", "email": people[1].email],
                                                                     "token": first.json["token"] ?? ""])
        #expect(replay.json["status"] as? Int == 401, "\(replay.text)")
        #expect((((replay.json["body"] as? [String: Any])?["error_description"]) as? String)?.contains("jti") == true, "\(replay.text)")
        #expect(try await rig.me(people[1].accessToken).status == 200, "the second person's session is intact")
        try await rig.stop()
    }

    @Test func aGlobalTokenRevocationBearerIsShortLivedForThisServerAndScoped() async throws {
        guard await SharedSignalsPeers.isAvailable() else { return }
        let transmitter = try await SharedSignalsPeers.Transmitter(now: Date())
        defer { transmitter.stop() }
        let (rig, issuer) = try await SharedSignalsReceiverTests.rig(.sqlite, transmitter: transmitter)
        let people = try await Self.twoPeople(rig)
        let url = issuer + "/oauth/global-token-revocation"
        let now = Int(rig.test.clock.now().timeIntervalSince1970)
        let person: [String: Any] = ["format": "email", "email": people[0].email]
        let cases: [(String, [String: Any], Int, String)] = [
            ("exp a year away", ["exp": now + 365 * 86_400, "claims": Self.scope], 401, "lifetime"),
            ("exp an hour after iat", ["iat": now, "exp": now + 3_600, "claims": Self.scope], 401, "lifetime"),
            ("no iat", ["exp": now + 300, "claims": Self.scope.merging(["iat": NSNull()]) { $1 }], 401, "iat"),
            ("another server's audience", ["aud": "https://elsewhere.example.com/oauth/global-token-revocation", "claims": Self.scope], 401, "aud"),
            ("no scope", [:], 403, "global_token_revocation"),
            ("another scope", ["claims": ["scope": "openid email"]], 403, "global_token_revocation"),
            ("no jti", ["claims": Self.scope.merging(["jti": NSNull()]) { $1 }], 401, "jti"),
        ]
        for (what, change, status, words) in cases {
            let reply = try await transmitter.control(rig.test, "gtr", ["url": url, "sub_id": person, "iat": now, "exp": now + 300].merging(change) { $1 })
            let body = reply.json["body"] as? [String: Any]
            #expect(reply.json["status"] as? Int == status, "\(what): \(reply.text)")
            #expect((body?["error_description"] as? String)?.contains(words) == true, "\(what): \(reply.text)")
        }
        #expect(try await rig.me(people[0].accessToken).status == 200, "no refused request ended a session")
        let good = try await transmitter.control(rig.test, "gtr", ["url": url, "sub_id": person, "iat": now, "exp": now + 300, "claims": Self.scope])
        #expect(good.json["status"] as? Int == 204, "\(good.text)")
        try await rig.stop()
    }

    @Test func theSameLogoutTokenDoesNotEndTheSessionOfAPersonWhoSignedBackIn() async throws {
        try await AdminSignInTests.withAdminSignedIn { provider, test, browser in
            let uri = test.server.baseURL.absoluteString + "/dashboard/backchannel-logout"
            let now = Int(Date().timeIntervalSince1970)
            let claims: [String: Any] = ["iss": provider.issuer, "aud": "handover-dashboard", "iat": now, "exp": now + 120, "jti": UUID().uuidString,
                                         "sub": "ada", "events": ["http://schemas.openid.net/event/backchannel-logout": [String: Any]()]]
            #expect(try await provider.backChannelLogout(to: uri, claims, client: test.client).status == 200)
            #expect(try await browser.get("/dashboard").status == 303, "the logout token ended the session")

            // Ada signs back in; the same token (the same jti) posted again is refused (§2.8: 400).
            let again = DashboardBrowser(test)
            #expect(try await AdminSignInTests.signIn(again, at: provider, as: "ada").status == 200)
            let replay = try await provider.backChannelLogout(to: uri, claims, client: test.client)
            #expect(replay.status == 400 && replay.body.contains("jti"), "\(replay)")
            #expect(try await again.get("/dashboard").status == 200, "the new session is intact")

            // A logout token without a jti is refused (§2.4: REQUIRED).
            var withoutJTI = claims
            withoutJTI["jti"] = nil
            let missing = try await provider.backChannelLogout(to: uri, withoutJTI, client: test.client)
            #expect(missing.status == 400, "\(missing)")
            #expect(try await again.get("/dashboard").status == 200)
        }
    }
}
