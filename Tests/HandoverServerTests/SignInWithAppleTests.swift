import AppleIDTestServer
import AppleSignIn
import AsyncHTTPClient
import Foundation
import HandoverConfiguration
import HandoverServer
import NIOCore
import Testing

/// A Handover server with Sign in with Apple pointed at a local server that speaks Apple's
/// protocol, both on one manual clock.
final class AppleRig: Sendable {
    static let clientID = "com.example.handover"
    let apple: AppleIDTestServer
    let test: TestServer
    let pem: String

    private init(apple: AppleIDTestServer, test: TestServer, pem: String) {
        self.apple = apple
        self.test = test
        self.pem = pem
    }

    /// A rig on a port chosen before the server binds it (its public URL names the port): under
    /// a full parallel run another test, or a storm's client sockets, can take that free port in
    /// between, so a taken port is picked again, up to three times.
    static func startOnFreePort(_ database: TestDatabase,
                                configure: @escaping @Sendable (inout ServerConfiguration, Int) -> Void) async throws -> AppleRig {
        for attempt in 1...3 {
            let port = try await OIDCBackendPeer.freePort()
            do {
                return try await start(database) { configuration in
                    configuration.port = port
                    configure(&configuration, port)
                }
            } catch let error as ConfigurationError where attempt < 3 && error.description.contains("already in use") {
                continue
            }
        }
        throw ConfigurationError(setting: "--port", problem: "no free port held still for three attempts", accepted: "a quieter machine")
    }

    static func start(_ database: TestDatabase, strict: Bool = false, sharing other: AppleRig? = nil,
                      configure: @escaping (inout ServerConfiguration) -> Void = { _ in }) async throws -> AppleRig {
        let apple: AppleIDTestServer
        if let other { apple = other.apple } else {
            apple = try await AppleIDTestServer.start(clock: ManualClock(start: Date(timeIntervalSince1970: 1_800_000_000)))
        }
        let pem = try other?.pem ?? apple.registerClient(clientID: clientID, teamID: "TEAM123456", keyID: "KEY1234567")
        let test = try await TestServer.start(database, sharing: other?.test) { configuration in
            configuration.signInWithApple = SignInWithAppleConfiguration(
                clientIDs: [clientID, "com.example.other"], teamID: "TEAM123456", keyID: "KEY1234567", privateKeyPEM: pem, baseURL: apple.baseURL)
            configuration.sessions.strict = strict
            configure(&configuration)
        }
        return AppleRig(apple: apple, test: test, pem: pem)
    }

    func stop(keepApple: Bool = false) async throws {
        try await test.stop()
        if !keepApple { try await apple.shutdown() }
    }

    /// Moves both clocks (ours and Apple's) forward.
    func advance(_ seconds: TimeInterval) {
        test.clock.advance(by: seconds)
        apple.clock.advance(by: seconds)
    }

    func nonce() async throws -> String {
        let reply = try await test.request(.POST, "/auth/apple/nonce")
        #expect(reply.status == 200, "\(reply.text)")
        return reply.json["nonce"] as? String ?? ""
    }

    /// What the app sends after the Apple sheet: a fresh nonce, a token carrying its hash, a code.
    func credential(sub: String, email: String? = "ward7@example.com") async throws -> [String: Any] {
        let nonce = try await nonce()
        let token = try await apple.makeIdentityToken(sub: sub, aud: Self.clientID, nonce: IdentityTokenVerifier.sha256Hex(nonce), email: email)
        let code = apple.issueAuthorizationCode(clientID: Self.clientID, sub: sub, email: email)
        return ["identityToken": token, "authorizationCode": code, "nonce": nonce, "fullName": ["givenName": "Ada", "familyName": "Nurse"]]
    }

    /// Signs in and returns the grant (`accessToken`, `refreshToken`, `expiresIn`, `user`).
    func signIn(sub: String = "001234.apple-user", email: String? = "ward7@example.com",
                extra: [String: Any] = [:]) async throws -> [String: Any] {
        var body = try await credential(sub: sub, email: email)
        for (name, value) in extra { body[name] = value }
        let reply = try await test.request(.POST, "/auth/apple", json: body)
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.headers.first(name: "Cache-Control") == "no-store")
        return reply.json
    }

    func me(_ accessToken: String) async throws -> TestServer.Reply {
        try await test.request(.GET, "/api/v1/me", key: accessToken)
    }

    func refresh(_ refreshToken: String) async throws -> TestServer.Reply {
        try await test.request(.POST, "/auth/refresh", json: ["refreshToken": refreshToken])
    }

    /// The refresh-token validations Apple received.
    var appleValidations: Int {
        apple.requests(to: "/auth/token").filter { $0.form["grant_type"] == "refresh_token" }.count
    }
}

extension TestServer.Reply {
    var errorCode: String? { json["error"] as? String }
}

@Suite("Sign in with Apple on the server: sign-in, sessions, refresh, notifications", .serialized, .timeLimit(.minutes(5)), .stopsTestServers)
struct SignInWithAppleTests {
    @Test(arguments: TestDatabase.available)
    func signInGivesASessionThatReadsMe(_ database: TestDatabase) async throws {
        let rig = try await AppleRig.start(database)
        let grant = try await rig.signIn()
        let access = grant["accessToken"] as? String ?? ""
        #expect(grant["expiresIn"] as? Int == 300)
        #expect((grant["refreshToken"] as? String)?.hasPrefix("hrt_") == true)
        let user = grant["user"] as? [String: Any]
        #expect(user?["email"] as? String == "ward7@example.com")
        let me = try await rig.me(access)
        #expect(me.status == 200, "\(me.text)")
        #expect(me.json["id"] as? String == user?["id"] as? String)
        #expect(me.json["email"] as? String == "ward7@example.com")
        // The same Apple user signing in again is the same user.
        let again = try await rig.signIn()
        #expect((again["user"] as? [String: Any])?["id"] as? String == user?["id"] as? String)
        // Apple's refresh token is not stored in the clear.
        if database == .sqlite {
            let appleTokens = rig.apple.refreshTokens(subject: "001234.apple-user").map(\.token)
            #expect(appleTokens.count == 2)
            var bytes = Data()
            for file in ["handover.sqlite", "handover.sqlite-wal"] {
                bytes.append((try? Data(contentsOf: rig.test.dataDirectory.appendingPathComponent(file))) ?? Data())
            }
            for token in appleTokens { #expect(bytes.range(of: Data(token.utf8)) == nil, "Apple refresh token stored in the clear") }
            #expect(FileManager.default.fileExists(atPath: rig.test.dataDirectory.appendingPathComponent("token-encryption.key").path))
        }
        try await rig.stop()
    }

    @Test func aReplayedIdentityTokenFailsBecauseItsNonceIsUsed() async throws {
        let rig = try await AppleRig.start(.sqlite)
        var credential = try await rig.credential(sub: "replay-user")
        let first = try await rig.test.request(.POST, "/auth/apple", json: credential)
        #expect(first.status == 200)
        credential["authorizationCode"] = rig.apple.issueAuthorizationCode(clientID: AppleRig.clientID, sub: "replay-user")
        let replay = try await rig.test.request(.POST, "/auth/apple", json: credential)
        #expect(replay.status == 401)
        #expect(replay.errorCode == "nonce_invalid")
        #expect(replay.json["field"] as? String == "nonce")
        try await rig.stop()
    }

    @Test func anExpiredNonceFails() async throws {
        let rig = try await AppleRig.start(.sqlite)
        let credential = try await rig.credential(sub: "slow-user")
        rig.advance(601)
        // The identity token itself is now expired too; refresh it to test the nonce alone.
        var fresh = credential
        fresh["identityToken"] = try await rig.apple.makeIdentityToken(
            sub: "slow-user", aud: AppleRig.clientID, nonce: IdentityTokenVerifier.sha256Hex(credential["nonce"] as? String ?? ""))
        fresh["authorizationCode"] = rig.apple.issueAuthorizationCode(clientID: AppleRig.clientID, sub: "slow-user")
        let reply = try await rig.test.request(.POST, "/auth/apple", json: fresh)
        #expect(reply.status == 401)
        #expect(reply.errorCode == "nonce_invalid")
        try await rig.stop()
    }

    @Test func aReusedAuthorizationCodeFails() async throws {
        let rig = try await AppleRig.start(.sqlite)
        let first = try await rig.credential(sub: "code-user")
        #expect(try await rig.test.request(.POST, "/auth/apple", json: first).status == 200)
        var second = try await rig.credential(sub: "code-user")
        second["authorizationCode"] = first["authorizationCode"]
        let reply = try await rig.test.request(.POST, "/auth/apple", json: second)
        #expect(reply.status == 401)
        #expect(reply.errorCode == "authorization_code_rejected")
        try await rig.stop()
    }

    @Test func badIdentityTokensAreRefusedWithTheCheckThatFailed() async throws {
        let rig = try await AppleRig.start(.sqlite)
        func attempt(_ mutate: (inout [String: Any]) async throws -> Void) async throws -> TestServer.Reply {
            var credential = try await rig.credential(sub: "bad-user")
            try await mutate(&credential)
            return try await rig.test.request(.POST, "/auth/apple", json: credential)
        }
        let wrongAudience = try await attempt { credential in
            credential["identityToken"] = try await rig.apple.makeIdentityToken(
                sub: "bad-user", aud: "com.attacker.app", nonce: IdentityTokenVerifier.sha256Hex(credential["nonce"] as? String ?? ""))
        }
        #expect(wrongAudience.status == 401)
        #expect(wrongAudience.errorCode == "invalid_identity_token")
        #expect(wrongAudience.text.contains("audience"))
        let wrongNonce = try await attempt { credential in
            credential["nonce"] = try await rig.nonce()
        }
        #expect(wrongNonce.status == 401)
        #expect(wrongNonce.text.contains("nonce"))
        let expired = try await attempt { credential in
            credential["identityToken"] = try await rig.apple.makeIdentityToken(
                sub: "bad-user", aud: AppleRig.clientID, nonce: IdentityTokenVerifier.sha256Hex(credential["nonce"] as? String ?? ""),
                issuedAt: rig.apple.clock.now.addingTimeInterval(-3600))
        }
        #expect(expired.status == 401)
        #expect(expired.text.contains("expired"))
        // (A nonce of 16 characters at least, openapi.yaml's minLength, or the nonce is named first.)
        let missing = try await rig.test.request(.POST, "/auth/apple", json: ["identityToken": "x", "nonce": String(repeating: "y", count: 16)])
        #expect(missing.status == 400)
        #expect(missing.json["field"] as? String == "authorizationCode")
        try await rig.stop()
    }

    @Test(arguments: TestDatabase.available)
    func refreshRotatesAndAReusedRefreshTokenRevokesTheFamily(_ database: TestDatabase) async throws {
        let rig = try await AppleRig.start(database)
        let grant = try await rig.signIn()
        let firstRefresh = grant["refreshToken"] as? String ?? ""
        let rotated = try await rig.refresh(firstRefresh)
        #expect(rotated.status == 200, "\(rotated.text)")
        let secondRefresh = rotated.json["refreshToken"] as? String ?? ""
        let secondAccess = rotated.json["accessToken"] as? String ?? ""
        #expect(secondRefresh != firstRefresh)
        #expect(try await rig.me(secondAccess).status == 200)
        // The first refresh token again: it was copied. The whole family ends.
        let reuse = try await rig.refresh(firstRefresh)
        #expect(reuse.status == 401)
        #expect(reuse.errorCode == "refresh_token_reused")
        #expect(try await rig.refresh(secondRefresh).errorCode == "session_revoked")
        let me = try await rig.me(secondAccess)
        #expect(me.status == 401)
        #expect(me.errorCode == "session_revoked")
        // Another session of the same user is untouched.
        let other = try await rig.signIn()
        #expect(try await rig.me(other["accessToken"] as? String ?? "").status == 200)
        #expect(try await rig.refresh("hrt_unknown").errorCode == "invalid_refresh_token")
        try await rig.stop()
    }

    @Test func accessTokensExpireAfterTheSessionTTL() async throws {
        let rig = try await AppleRig.start(.sqlite)
        let grant = try await rig.signIn()
        let access = grant["accessToken"] as? String ?? ""
        rig.advance(299)
        #expect(try await rig.me(access).status == 200)
        rig.advance(1)
        let expired = try await rig.me(access)
        #expect(expired.status == 401)
        #expect(expired.errorCode == "invalid_access_token")
        #expect(expired.text.contains("expired"))
        let refreshed = try await rig.refresh(grant["refreshToken"] as? String ?? "")
        #expect(try await rig.me(refreshed.json["accessToken"] as? String ?? "").status == 200)
        #expect(try await rig.test.request(.GET, "/api/v1/me").status == 401)
        #expect(try await rig.me("not.a.jwt").errorCode == "invalid_access_token")
        try await rig.stop()
    }

    @Test func appleIsAskedAtMostOnceADayAndInvalidGrantEndsEverySession() async throws {
        let rig = try await AppleRig.start(.sqlite)
        let phone = try await rig.signIn(sub: "daily-user")
        let tablet = try await rig.signIn(sub: "daily-user")
        // Within a day of the sign-in, refreshing does not ask Apple.
        rig.advance(3600)
        let early = try await rig.refresh(phone["refreshToken"] as? String ?? "")
        #expect(early.status == 200)
        #expect(rig.appleValidations == 0)
        // A day later, two concurrent refreshes of the same user make one call to Apple.
        rig.advance(86_400)
        async let a = rig.refresh(early.json["refreshToken"] as? String ?? "")
        async let b = rig.refresh(tablet["refreshToken"] as? String ?? "")
        let (phoneNext, tabletNext) = try await (a, b)
        #expect(phoneNext.status == 200, "\(phoneNext.text)")
        #expect(tabletNext.status == 200, "\(tabletNext.text)")
        #expect(rig.appleValidations == 1)
        // The user stops using Sign in with Apple with the app; a day later Apple says invalid_grant.
        rig.apple.revokeGrants(subject: "daily-user")
        rig.advance(86_401)
        let refused = try await rig.refresh(phoneNext.json["refreshToken"] as? String ?? "")
        #expect(refused.status == 401)
        #expect(refused.errorCode == "apple_grant_revoked")
        #expect(try await rig.refresh(tabletNext.json["refreshToken"] as? String ?? "").errorCode == "session_revoked")
        #expect(try await rig.me(tabletNext.json["accessToken"] as? String ?? "").status == 401)
        try await rig.stop()
    }

    @Test func aDuplicateNotificationIsProcessedOnceAndConsentRevokedCutsOffALiveSession() async throws {
        let rig = try await AppleRig.start(.sqlite)
        let grant = try await rig.signIn(sub: "consent-user")
        let access = grant["accessToken"] as? String ?? ""
        #expect(try await rig.me(access).status == 200)
        let url = rig.test.server.baseURL.appendingPathComponent("auth/apple/notifications")
        let disabled = try await rig.apple.makeNotificationJWT(type: "email-disabled", sub: "consent-user", aud: AppleRig.clientID, jti: "jti-1")
        let first = try await rig.test.request(.POST, url.absoluteString, json: ["payload": disabled])
        #expect(first.json["status"] as? String == "processed")
        let duplicate = try await rig.test.request(.POST, url.absoluteString, json: ["payload": disabled])
        #expect(duplicate.status == 200)
        #expect(duplicate.json["status"] as? String == "duplicate")
        #expect(try await rig.me(access).status == 200, "email events do not end sessions")
        let revoked = try await rig.apple.makeNotificationJWT(type: "consent-revoked", sub: "consent-user", aud: AppleRig.clientID)
        #expect(try await rig.apple.postNotification(revoked, to: url, httpClient: rig.test.client) == 200)
        let me = try await rig.me(access)
        #expect(me.status == 401, "a live access token stops at once on this instance")
        #expect(me.errorCode == "session_revoked")
        #expect(try await rig.refresh(grant["refreshToken"] as? String ?? "").status == 401)
        let forged = try await rig.test.request(.POST, url.absoluteString, json: ["payload": "eyJhbGciOiJub25lIn0.e30."])
        #expect(forged.status == 400)
        #expect(forged.errorCode == "invalid_notification")
        try await rig.stop()
    }

    @Test func accountDeleteNotificationDeletesTheUser() async throws {
        let rig = try await AppleRig.start(.sqlite)
        let grant = try await rig.signIn(sub: "leaving-user")
        let url = rig.test.server.baseURL.appendingPathComponent("auth/apple/notifications")
        let deleted = try await rig.apple.makeNotificationJWT(type: "account-delete", sub: "leaving-user", aud: AppleRig.clientID)
        #expect(try await rig.apple.postNotification(deleted, to: url, httpClient: rig.test.client) == 200)
        #expect(try await rig.me(grant["accessToken"] as? String ?? "").status == 401)
        let again = try await rig.signIn(sub: "leaving-user")
        #expect((again["user"] as? [String: Any])?["id"] as? String != (grant["user"] as? [String: Any])?["id"] as? String,
                "the old user's data is gone; signing in again makes a new user")
        try await rig.stop()
    }

    @Test func logoutEndsTheSessionAndDeletingTheAccountRevokesTheAppleToken() async throws {
        let rig = try await AppleRig.start(.sqlite)
        let first = try await rig.signIn(sub: "closing-user")
        let logout = try await rig.test.request(.POST, "/auth/logout", key: first["accessToken"] as? String)
        #expect(logout.status == 204)
        #expect(try await rig.me(first["accessToken"] as? String ?? "").status == 401)
        #expect(try await rig.refresh(first["refreshToken"] as? String ?? "").status == 401)

        let second = try await rig.signIn(sub: "closing-user")
        let delete = try await rig.test.request(.DELETE, "/api/v1/me", key: second["accessToken"] as? String)
        #expect(delete.status == 204, "\(delete.text)")
        #expect(rig.apple.requests(to: "/auth/revoke").count == 1)
        let tokens = rig.apple.refreshTokens(subject: "closing-user")
        #expect(tokens.contains { $0.revoked }, "the Apple refresh token was revoked at Apple")
        #expect(try await rig.me(second["accessToken"] as? String ?? "").status == 401)
        try await rig.stop()
    }

    @Test func revocationReachesAnotherInstanceWithinTheTTLOrAtOnceWhenStrict() async throws {
        let a = try await AppleRig.start(.sqlite)
        let relaxed = try await AppleRig.start(.sqlite, sharing: a)
        let strict = try await AppleRig.start(.sqlite, strict: true, sharing: a)
        let grant = try await a.signIn(sub: "shared-user")
        let access = grant["accessToken"] as? String ?? ""
        #expect(try await relaxed.me(access).status == 200, "instances share the signing keys")
        #expect(try await strict.me(access).status == 200)
        #expect(try await a.test.request(.POST, "/auth/logout", key: access).status == 204)
        #expect(try await a.me(access).status == 401)
        #expect(try await strict.me(access).status == 401, "strict sessions read the session row")
        // The relaxed instance never heard (SQLite has no NOTIFY); the token dies with its TTL.
        a.advance(300)
        #expect(try await relaxed.me(access).status == 401)
        try await strict.stop(keepApple: true)
        try await relaxed.stop(keepApple: true)
        try await a.stop()
    }

    @Test func onPostgresARevocationReachesAnotherInstanceThroughNotify() async throws {
        guard TestDatabase.available.contains(.postgres) else { return }
        let a = try await AppleRig.start(.postgres)
        let b = try await AppleRig.start(.postgres, sharing: a)
        let grant = try await a.signIn(sub: "notify-user")
        let access = grant["accessToken"] as? String ?? ""
        #expect(try await b.me(access).status == 200)
        #expect(try await a.test.request(.POST, "/auth/logout", key: access).status == 204)
        // NOTIFY is asynchronous: wait (real time, bounded) for B to hear it; the clocks stand still,
        // so only the notification can make B refuse the token.
        var status = 200
        for _ in 0..<100 where status == 200 {
            status = try await b.me(access).status
            if status == 200 { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(status == 401, "B heard the revocation well within the TTL")
        try await b.stop(keepApple: true)
        try await a.stop()
    }

    @Test func theSigningKeyRotatesAndOldTokensStillVerifyUntilTheyExpire() async throws {
        let rig = try await AppleRig.start(.sqlite)
        let grant = try await rig.signIn()
        // The next key is published an hour before the rotation and signs from the rotation on.
        rig.advance(86_400 - 3_600)
        try await rig.test.server.maintainSessions()
        rig.advance(3_600 - 100)
        let beforeRotation = try await rig.refresh(grant["refreshToken"] as? String ?? "")
        let old = beforeRotation.json["accessToken"] as? String ?? ""
        rig.advance(100)
        try await rig.test.server.maintainSessions()
        #expect(try await rig.me(old).status == 200, "a token signed by the previous key lives out its TTL")
        let refreshed = try await rig.refresh(beforeRotation.json["refreshToken"] as? String ?? "")
        let new = refreshed.json["accessToken"] as? String ?? ""
        func kid(_ token: String) -> String {
            var header = String(token.split(separator: ".").first ?? "")
            header = header.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while header.count % 4 != 0 { header += "=" }
            let json = (try? JSONSerialization.jsonObject(with: Data(base64Encoded: header) ?? Data())) as? [String: Any]
            return json?["kid"] as? String ?? ""
        }
        #expect(kid(old) != kid(new))
        #expect(try await rig.me(new).status == 200)
        try await rig.stop()
    }

    @Test func withoutAppleConfigurationSignInSaysSo() async throws {
        let test = try await TestServer.start(.sqlite)
        let reply = try await test.request(.POST, "/auth/apple", json: ["identityToken": "x", "authorizationCode": "y", "nonce": String(repeating: "n", count: 32)])
        #expect(reply.status == 404)
        #expect(reply.errorCode == "not_configured")
        #expect(reply.text.contains("HANDOVER_APPLE_CLIENT_IDS"))
        // Nor does a nonce get stored for it.
        #expect(try await test.request(.POST, "/auth/apple/nonce").status == 404)
        // A JSON body without a Content-Type is read as JSON, never a 415 (schemathesis found it).
        let untyped = try await test.request(.POST, "/auth/refresh", body: #"{"refreshToken":"hrt_x"}"#)
        #expect(untyped.status == 401)
        #expect(untyped.json["error"] as? String == "invalid_refresh_token")
        #expect(try await test.request(.POST, "/auth/email/redeem", body: #"{"token":"t"}"#).status == 401)
        try await test.stop()
    }
}
