import Foundation
import HandoverClient
import HandoverServer
import Testing

/// A team's apps on one shared device: app A ("handover", the Apple client id) signs in with
/// `device_sso`; sibling B ("pharmacy", same team) signs in through `SharedSession` with no user step.
@Suite("Native SSO between a team's apps, and one global sign-out", .serialized, .timeLimit(.minutes(5)), .stopsTestServers)
struct NativeSSOTests {
    struct Fleet {
        var rig: AppleRig
        var deviceID: String
        var store: FileSecretStore
        var appA: SharedSession
        var appB: SharedSession
    }

    func fleet(_ database: TestDatabase = .sqlite) async throws -> Fleet {
        let rig = try await AppleRig.start(database)
        do { return try await fleet(rig) } catch {
            try await rig.stop()
            throw error
        }
    }

    private func fleet(_ rig: AppleRig) async throws -> Fleet {
        try await rig.test.registerTarget("handover")      // ABCDE12345.com.example.handover
        try await rig.test.registerTarget("pharmacy")      // ABCDE12345.com.example.pharmacy
        let foreign = try await rig.test.request(.POST, "/api/v1/apps", json: [
            "name": "Foreign", "appIDs": ["ZZZZZ99999.com.example.foreign"], "logoutAction": "https://foreign.example.com/logout",
        ], key: rig.test.adminKey)
        #expect(foreign.status == 201, "\(foreign.text)")
        let device = try await rig.test.registerDevice()
        let store = FileSecretStore(directory: rig.test.dataDirectory.appendingPathComponent("shared-keychain"))
        let server = rig.test.server.baseURL
        return Fleet(rig: rig, deviceID: device.id, store: store,
                     appA: SharedSession(server: server, clientID: AppleRig.clientID, store: store),
                     appB: SharedSession(server: server, clientID: "com.example.pharmacy", store: store))
    }

    /// App A signs in with Apple asking for device SSO, and keeps the device session for its siblings.
    func signInA(_ fleet: Fleet, bindDevice: Bool = true) async throws -> [String: Any] {
        var extra: [String: Any] = ["scope": "openid device_sso"]
        if bindDevice { extra["deviceID"] = fleet.deviceID }
        let grant = try await fleet.rig.signIn(sub: "sso-user", extra: extra)
        let secret = grant["deviceSecret"] as? String ?? "", idToken = grant["idToken"] as? String ?? ""
        #expect(!secret.isEmpty && !idToken.isEmpty, "\(grant)")
        try fleet.appA.keep(deviceSecret: secret, idToken: idToken)
        return grant
    }

    /// App B signs in through the shared device session (errors recorded, not thrown, so the
    /// servers are always stopped).
    func sibling(_ fleet: Fleet) async throws -> SharedSession.Tokens {
        do {
            if let tokens = try await fleet.appB.signInSibling() { return tokens }
            Issue.record("no device session was kept")
        } catch {
            Issue.record("sibling sign-in failed: \(error)")
        }
        return SharedSession.Tokens(accessToken: "", refreshToken: "", expiresIn: 0, idToken: nil)
    }

    func claims(_ jwt: String) -> [String: Any] {
        var part = String(jwt.split(separator: ".").dropFirst().first ?? "")
        part = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while part.count % 4 != 0 { part += "=" }
        return (try? JSONSerialization.jsonObject(with: Data(base64Encoded: part) ?? Data())) as? [String: Any] ?? [:]
    }

    @Test(arguments: TestDatabase.available)
    func aSiblingGetsItsOwnSessionWithNoUserStepAndADeviceLogoutEndsBoth(_ database: TestDatabase) async throws {
        let fleet = try await fleet(database)
        let rig = fleet.rig
        let a = try await signInA(fleet)
        let idClaims = claims(a["idToken"] as? String ?? "")
        #expect(idClaims["sid"] as? String != nil)
        #expect(idClaims["ds_hash"] as? String != nil)
        #expect(idClaims["aud"] as? String == AppleRig.clientID)

        let b = try await sibling(fleet)
        #expect(claims(b.idToken ?? "")["aud"] as? String == "com.example.pharmacy")
        #expect(claims(b.idToken ?? "")["sid"] as? String == idClaims["sid"] as? String)
        let meA = try await rig.me(a["accessToken"] as? String ?? "")
        let meB = try await rig.me(b.accessToken)
        #expect(meB.status == 200)
        #expect(meB.json["id"] as? String == meA.json["id"] as? String, "the same user, in B's own session")

        // The shared phone changes hands: its logout run signs every app out.
        try await rig.test.registerTarget("Notes")
        let run = try await rig.test.request(.POST, "/api/v1/devices/\(fleet.deviceID)/logout-runs", key: rig.test.adminKey)
        #expect(run.status == 201, "\(run.text)")
        #expect(try await rig.me(a["accessToken"] as? String ?? "").status == 401)
        #expect(try await rig.me(b.accessToken).status == 401)
        #expect(try await rig.refresh(a["refreshToken"] as? String ?? "").status == 401)
        #expect(try await rig.refresh(b.refreshToken).status == 401)
        await #expect(throws: SharedSessionError.self) { try await fleet.appB.signInSibling() }
        #expect(try fleet.appB.current() == nil, "the dead device secret was forgotten")
        try await rig.stop()
    }

    @Test func logoutWithScopeDeviceEndsEverySiblingSession() async throws {
        let fleet = try await fleet()
        let a = try await signInA(fleet, bindDevice: false)
        let b = try await sibling(fleet)
        let logout = try await fleet.rig.test.request(.POST, "/auth/logout?scope=device", key: b.accessToken)
        #expect(logout.status == 204)
        #expect(try await fleet.rig.me(a["accessToken"] as? String ?? "").status == 401)
        #expect(try await fleet.rig.me(b.accessToken).status == 401)
        try await fleet.rig.stop()
    }

    /// Custody (issue 40): a sibling's Native SSO exchange carries the device its secret is bound
    /// to; the person takes back a device someone else signed in on before a hand-over.
    @Test func aNativeSSOExchangeChecksTheBoundDeviceOut() async throws {
        let fleet = try await fleet()
        let rig = fleet.rig
        _ = try await signInA(fleet)
        rig.advance(60)  // each step a minute apart: the report lists the newest custody first
        _ = try await rig.signIn(sub: "nurse-2", email: "bo@hospital.example", extra: ["deviceID": fleet.deviceID])
        rig.advance(60)
        _ = try await sibling(fleet)
        let custody = try await rig.test.request(.GET, "/api/v1/custody?device=\(fleet.deviceID)", key: rig.test.adminKey)
        let records = try #require(custody.json["custodies"] as? [[String: Any]], "\(custody.text)")
        #expect(records.map { $0["checkedOutBy"] as? String } == ["native_sso", "sign_in_with_apple", "sign_in_with_apple"], "\(records)")
        #expect(records.first?["personEmail"] as? String == "ward7@example.com" && records.first?["checkedInAt"] == nil, "\(records)")
        #expect(records.dropFirst().allSatisfy { ($0["endedWithoutRun"] as? String)?.isEmpty == false }, "\(records)")
        try await rig.stop()
    }

    @Test func theExchangeChecksTeamClientDsHashAndTheOldActorTokenType() async throws {
        let fleet = try await fleet()
        let rig = fleet.rig
        let a = try await signInA(fleet)
        let secret = a["deviceSecret"] as? String ?? "", idToken = a["idToken"] as? String ?? ""
        func exchange(client: String, idToken: String, secret: String,
                      actorType: String = "urn:openid:params:token-type:device-secret") async throws -> TestServer.Reply {
            let form = [
                ("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"), ("client_id", client),
                ("subject_token", idToken), ("subject_token_type", "urn:ietf:params:oauth:token-type:id_token"),
                ("actor_token", secret), ("actor_token_type", actorType),
            ].map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&")
            return try await rig.test.request(.POST, "/oauth/token", headers: [("Content-Type", "application/x-www-form-urlencoded")], body: form)
        }
        let old = try await exchange(client: "com.example.pharmacy", idToken: idToken, secret: secret,
                                     actorType: "urn:x-oath:params:oauth:token-type:device-secret")
        #expect(old.status == 200, "\(old.text)")
        #expect(old.json["issued_token_type"] as? String == "urn:ietf:params:oauth:token-type:access_token")
        let foreign = try await exchange(client: "com.example.foreign", idToken: idToken, secret: secret)
        #expect(foreign.status == 400)
        #expect(foreign.json["error"] as? String == "invalid_grant")
        let unknown = try await exchange(client: "com.example.unregistered", idToken: idToken, secret: secret)
        #expect(unknown.status == 401)
        #expect(unknown.json["error"] as? String == "invalid_client")
        // Another device secret of the same user does not match this ID token's ds_hash.
        let second = try await rig.signIn(sub: "sso-user", extra: ["scope": "device_sso"])
        let mismatched = try await exchange(client: "com.example.pharmacy", idToken: idToken, secret: second["deviceSecret"] as? String ?? "")
        #expect(mismatched.status == 400)
        #expect(mismatched.json["error"] as? String == "invalid_grant")
        let badType = try await exchange(client: "com.example.pharmacy", idToken: idToken, secret: secret, actorType: "urn:example:other")
        #expect(badType.json["error"] as? String == "invalid_request")
        let wrongGrant = try await rig.test.request(.POST, "/oauth/token", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                                    body: "grant_type=password&username=a&password=b")
        #expect(wrongGrant.status == 400)
        #expect(wrongGrant.json["error"] as? String == "unsupported_grant_type")
        // An access token is not an ID token.
        let confused = try await exchange(client: "com.example.pharmacy", idToken: a["accessToken"] as? String ?? "", secret: secret)
        #expect(confused.json["error"] as? String == "invalid_grant")
        try await rig.stop()
    }

    @Test func accessTokensOfRevokedSiblingsStopWithinTheTTLOnAnotherInstance() async throws {
        let fleet = try await fleet()
        let other = try await AppleRig.start(.sqlite, sharing: fleet.rig)
        _ = try await signInA(fleet)
        let b = try await sibling(fleet)
        #expect(try await other.me(b.accessToken).status == 200)
        #expect(try await fleet.rig.test.request(.POST, "/api/v1/devices/\(fleet.deviceID)/logout-runs", key: fleet.rig.test.adminKey).status == 201)
        fleet.rig.advance(300)
        #expect(try await other.me(b.accessToken).status == 401, "within one access-token lifetime")
        try await other.stop(keepApple: true)
        try await fleet.rig.stop()
    }
}
