import DeviceSimulator
import Foundation
import HandoverConfiguration
import HandoverServer
import NIOCore
import NIOPosix
import NIOHTTP1
import Testing

/// OpenID Connect for the team's backends: discovery and keys, tokens a backend verifies offline
/// (checked by joserfc, not by our code), RFC 7662 introspection, RFC 7009 revocation, RFC 7591
/// registration, and Back-Channel Logout when a hand-over ends a session.
@Suite("OpenID Connect for backends", .serialized, .timeLimit(.minutes(5)), .stopsTestServers)
struct OpenIDConnectTests {
    /// A rig whose public URL is its own loopback origin, so the issuer is a URL.
    static func rig(_ database: TestDatabase = .sqlite) async throws -> (AppleRig, String) {
        let rig = try await AppleRig.startOnFreePort(database) { configuration, port in
            configuration.publicURL = try? ServerConfiguration.parsePublicURL("http://127.0.0.1:\(port)", setting: "test")
        }
        return (rig, rig.test.server.publicURL.absoluteString)
    }

    /// Registers a backend client (RFC 7591); returns its id and secret.
    static func register(_ test: TestServer, _ metadata: [String: Any]) async throws -> (id: String, secret: String) {
        let reply = try await test.request(.POST, "/oauth/register", json: metadata, key: test.adminKey)
        #expect(reply.status == 201, "\(reply.text)")
        #expect(reply.headers.first(name: "Cache-Control") == "no-store")
        return (reply.json["client_id"] as? String ?? "", reply.json["client_secret"] as? String ?? "")
    }

    static func form(_ test: TestServer, _ path: String, _ fields: [String: String], basic: (String, String)? = nil) async throws -> TestServer.Reply {
        var headers = [("Content-Type", "application/x-www-form-urlencoded")]
        if let (id, secret) = basic {
            headers.append(("Authorization", "Basic " + Data("\(id):\(secret)".utf8).base64EncodedString()))
        }
        let body = fields.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&")
        return try await test.request(.POST, path, headers: headers, body: body)
    }

    @Test func discoveryNeedsAnIssuerURL() async throws {
        try await TestServer.with(.sqlite) { test in
            let reply = try await test.request(.GET, "/.well-known/openid-configuration")
            #expect(reply.status == 404 && reply.json["error"] as? String == "not_configured", "\(reply.text)")
            #expect((reply.json["reason"] as? String)?.contains("--public-url") == true)
        }
    }

    @Test func discoveryNamesEveryEndpointAndTheKeysVerify() async throws {
        let (rig, issuer) = try await Self.rig()
        let discovery = try await rig.test.request(.GET, "/.well-known/openid-configuration")
        #expect(discovery.status == 200, "\(discovery.text)")
        let metadata = discovery.json
        #expect(metadata["issuer"] as? String == issuer)
        #expect(metadata["jwks_uri"] as? String == issuer + "/oauth/jwks")
        #expect(metadata["introspection_endpoint"] as? String == issuer + "/oauth/introspect")
        #expect(metadata["revocation_endpoint"] as? String == issuer + "/oauth/revoke")
        #expect(metadata["registration_endpoint"] as? String == issuer + "/oauth/register")
        #expect(metadata["backchannel_logout_supported"] as? Bool == true)
        #expect(metadata["backchannel_logout_session_supported"] as? Bool == true)
        #expect(metadata["id_token_signing_alg_values_supported"] as? [String] == ["ES256"])
        #expect(metadata["introspection_endpoint_auth_methods_supported"] as? [String] == ["client_secret_basic", "client_secret_post"])

        let jwks = try await rig.test.request(.GET, "/oauth/jwks")
        #expect(jwks.status == 200)
        #expect(jwks.headers.first(name: "Content-Type") == "application/jwk-set+json")
        #expect(jwks.headers.first(name: "Cache-Control") == "public, max-age=3600")
        let keys = jwks.json["keys"] as? [[String: Any]] ?? []
        #expect(!keys.isEmpty)
        for key in keys {
            #expect(key["kty"] as? String == "EC" && key["crv"] as? String == "P-256" && key["alg"] as? String == "ES256" && key["use"] as? String == "sig")
            #expect((key["kid"] as? String)?.count == 16 && key["d"] == nil, "no private part is published")
        }
        try await rig.stop()
    }

    @Test func aNewKeyIsPublishedAnHourBeforeItSigns() async throws {
        let (rig, _) = try await Self.rig()
        let grant = try await rig.signIn()
        let firstKid = try Self.kid(of: grant["accessToken"] as? String ?? "")
        rig.advance(86_400 - 3_600)
        try await rig.test.server.maintainSessions()
        let keys = try await rig.test.request(.GET, "/oauth/jwks").json["keys"] as? [[String: Any]] ?? []
        #expect(keys.count == 2, "the next key is published before it signs")
        let during = try await rig.refresh(grant["refreshToken"] as? String ?? "")
        #expect(try Self.kid(of: during.json["accessToken"] as? String ?? "") == firstKid, "the old key still signs during the lead")
        rig.advance(3_600)
        try await rig.test.server.maintainSessions()
        let after = try await rig.refresh(during.json["refreshToken"] as? String ?? "")
        let newKid = try Self.kid(of: after.json["accessToken"] as? String ?? "")
        #expect(newKid != firstKid && keys.contains { $0["kid"] as? String == newKid }, "the key that signs now was in the set an hour ago")
        try await rig.stop()
    }

    static func kid(of token: String) throws -> String {
        let header = String(token.split(separator: ".").first ?? "")
        var base64 = header.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        let json = try JSONSerialization.jsonObject(with: Data(base64Encoded: base64) ?? Data()) as? [String: Any]
        return json?["kid"] as? String ?? ""
    }

    @Test func aJoserfcBackendVerifiesTokensWithTheJWKSAloneThenIntrospectsAndRevokesOne() async throws {
        let (rig, issuer) = try await Self.rig()
        let device = try await rig.test.registerDevice()
        let grant = try await rig.signIn(extra: ["scope": "openid device_sso", "deviceID": device.id])
        let access = grant["accessToken"] as? String ?? "", id = grant["idToken"] as? String ?? ""
        if await OIDCBackendPeer.isAvailable() {
            let now = rig.test.clock.now()
            let (accepted, output) = try await OIDCBackendPeer.verify(issuer: issuer, audience: AppleRig.clientID, kind: "access", token: access, now: now)
            #expect(accepted, "\(output)")
            #expect(output.contains("\"sid\"") && output.contains("\"jti\"") && output.contains("\"aud\": \"\(AppleRig.clientID)\""), "\(output)")
            let (idAccepted, idOutput) = try await OIDCBackendPeer.verify(issuer: issuer, audience: AppleRig.clientID, kind: "id", token: id, now: now)
            #expect(idAccepted, "\(idOutput)")
            // One signature character changed, well before the end: the last character of a
            // base64url signature carries padding bits, so changing it may leave the bytes as they were.
            var forged = Array(access)
            let changed = forged.count - 10
            forged[changed] = forged[changed] == "A" ? "B" : "A"
            let forgedText = String(forged)
            #expect(try await !OIDCBackendPeer.verify(issuer: issuer, audience: AppleRig.clientID, kind: "access", token: forgedText, now: now).0)
            #expect(try await !OIDCBackendPeer.verify(issuer: issuer, audience: "com.example.other", kind: "access", token: access, now: now).0,
                    "another client's backend refuses the token by its aud")
            // The same backend, with its credentials, introspects, revokes and introspects again.
            try await rig.test.registerTarget("handover")
            let backend = try await Self.register(rig.test, ["software_id": AppleRig.clientID])
            let (asExpected, answers) = try await OIDCBackendPeer.revokeCheck(issuer: issuer, clientID: backend.id, secret: backend.secret, token: access)
            #expect(asExpected, "\(answers)")
            #expect(try await rig.me(access).status == 401, "the revocation holds for the app's own API at once")
        }
        try await rig.stop()
    }

    @Test(arguments: TestDatabase.available) func introspectionSeesARevocationAtOnce(database: TestDatabase) async throws {
        let (rig, _) = try await Self.rig(database)
        try await rig.test.registerTarget("handover")
        try await rig.test.registerTarget("pharmacy")
        let appBackend = try await Self.register(rig.test, ["client_name": "Handover API", "software_id": AppleRig.clientID])
        #expect(appBackend.id == AppleRig.clientID, "an app's backend is the app's client id")
        let otherBackend = try await Self.register(rig.test, ["software_id": "com.example.pharmacy"])
        let fleet = try await Self.register(rig.test, ["client_name": "Ward systems"])
        #expect(fleet.id.hasPrefix("hoc_"))

        let grant = try await rig.signIn()
        let access = grant["accessToken"] as? String ?? "", refresh = grant["refreshToken"] as? String ?? ""
        let active = try await Self.form(rig.test, "/oauth/introspect", ["token": access, "token_type_hint": "access_token"], basic: appBackend)
        #expect(active.status == 200 && active.json["active"] as? Bool == true, "\(active.text)")
        #expect(active.json["aud"] as? String == AppleRig.clientID && active.json["token_type"] as? String == "Bearer")
        #expect(active.json["sid"] is String && active.json["sub"] is String && active.json["exp"] is Int && active.json["jti"] is String)
        #expect(active.headers.first(name: "Cache-Control") == "no-store")
        let byFleet = try await Self.form(rig.test, "/oauth/introspect", ["token": access, "client_id": fleet.id, "client_secret": fleet.secret])
        #expect(byFleet.json["active"] as? Bool == true, "a fleet backend sees every app's tokens (client_secret_post)")
        let byOther = try await Self.form(rig.test, "/oauth/introspect", ["token": access], basic: otherBackend)
        #expect(byOther.status == 200 && byOther.json.count == 1 && byOther.json["active"] as? Bool == false, "another app's backend learns nothing")
        let refreshActive = try await Self.form(rig.test, "/oauth/introspect", ["token": refresh], basic: appBackend)
        #expect(refreshActive.json["active"] as? Bool == true && refreshActive.json["token_type"] as? String == "refresh_token")

        let wrong = try await Self.form(rig.test, "/oauth/introspect", ["token": access], basic: (appBackend.id, "hcs_wrong"))
        #expect(wrong.status == 401 && wrong.json["error"] as? String == "invalid_client", "\(wrong.text)")
        #expect(wrong.headers.first(name: "WWW-Authenticate")?.hasPrefix("Basic") == true)
        let none = try await Self.form(rig.test, "/oauth/introspect", ["token": access])
        #expect(none.status == 401)
        let missing = try await Self.form(rig.test, "/oauth/introspect", [:], basic: appBackend)
        #expect(missing.status == 400 && missing.json["error"] as? String == "invalid_request")

        let refused = try await Self.form(rig.test, "/oauth/revoke", ["token": access], basic: otherBackend)
        #expect(refused.status == 400 && refused.json["error"] as? String == "unauthorized_client", "\(refused.text)")
        let revoked = try await Self.form(rig.test, "/oauth/revoke", ["token": refresh, "token_type_hint": "refresh_token"], basic: appBackend)
        #expect(revoked.status == 200, "\(revoked.text)")
        for token in [access, refresh] {
            let after = try await Self.form(rig.test, "/oauth/introspect", ["token": token], basic: appBackend)
            #expect(after.status == 200 && after.json["active"] as? Bool == false && after.json.count == 1, "\(after.text)")
        }
        #expect(try await rig.me(access).status == 401, "the app's own API refuses it too")
        let unknown = try await Self.form(rig.test, "/oauth/revoke", ["token": "hrt_unknown"], basic: appBackend)
        #expect(unknown.status == 200, "RFC 7009: an unknown token answers 200")
        try await rig.stop()
    }

    @Test func registrationRefusesWhatItCannotServe() async throws {
        let (rig, _) = try await Self.rig()
        let cases: [([String: Any], String, String)] = [
            (["software_id": "com.example.unknown"], "invalid_client_metadata", "software_id"),
            (["redirect_uris": ["https://x.example/cb"]], "invalid_redirect_uri", "authorization endpoint"),
            (["token_endpoint_auth_method": "private_key_jwt"], "invalid_client_metadata", "token_endpoint_auth_method"),
            (["backchannel_logout_uri": "https://api.example.com/logout#frag"], "invalid_client_metadata", "fragment"),
            (["backchannel_logout_uri": "ftp://api.example.com/logout"], "invalid_client_metadata", "https"),
        ]
        for (metadata, error, mention) in cases {
            let reply = try await rig.test.request(.POST, "/oauth/register", json: metadata, key: rig.test.adminKey)
            #expect(reply.status == 400 && reply.json["error"] as? String == error, "\(metadata): \(reply.text)")
            #expect((reply.json["error_description"] as? String)?.contains(mention) == true, "\(reply.text)")
        }
        let anonymous = try await rig.test.request(.POST, "/oauth/register", json: ["client_name": "x"])
        #expect(anonymous.status == 401, "the initial access token is an admin key")
        try await rig.stop()
    }

    @Test(arguments: TestDatabase.available) func aHandOverSendsALogoutTokenThatTheBackendValidates(database: TestDatabase) async throws {
        let (rig, issuer) = try await Self.rig(database)
        guard await OIDCBackendPeer.isAvailable() else { try await rig.stop(); return }
        let backend = try await OIDCBackendPeer.Server(issuer: issuer, clientID: AppleRig.clientID, now: rig.test.clock.now())
        do {
            let appID = try await rig.test.registerTarget("handover")
            let patch = try await rig.test.request(.PATCH, "/api/v1/apps/\(appID)", json: [
                "backchannelLogoutURI": backend.url + "/backchannel", "backchannelLogoutSessionRequired": true,
            ], key: rig.test.adminKey)
            #expect(patch.status == 200 && patch.json["backchannelLogoutURI"] as? String == backend.url + "/backchannel", "\(patch.text)")
            let device = try await rig.test.registerDevice()
            let grant = try await rig.signIn(extra: ["scope": "openid device_sso", "deviceID": device.id])
            let run = try await rig.test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", json: ["apps": [appID]], key: device.key)
            #expect(run.status == 201, "\(run.text)")
            #expect(try await rig.test.server.deliverBackChannelLogouts() == 1)
            #expect(try await rig.test.server.deliverBackChannelLogouts() == 0, "delivered once, then done")
            let runReport = try await rig.test.request(.GET, "/api/v1/logout-runs/\(run.json["id"] as? String ?? "")", key: device.key)
            let backendSide = (runReport.json["items"] as? [[String: Any]])?.first?["backend"] as? [String: Any]
            #expect(backendSide?["state"] as? String == "delivered" && backendSide?["lastStatusCode"] as? Int == 200, "\(runReport.text)")

            let report = try await rig.test.request(.GET, backend.url + "/report")
            let received = report.json["received"] as? [[String: Any]] ?? []
            #expect(received.count == 1)
            let first = try #require(received.first)
            #expect(first["valid"] as? Bool == true, "\(first)")
            #expect((first["content_type"] as? String)?.hasPrefix("application/x-www-form-urlencoded") == true)
            let claims = first["claims"] as? [String: Any] ?? [:]
            #expect(claims["aud"] as? String == AppleRig.clientID && claims["sub"] as? String == (grant["user"] as? [String: Any])?["id"] as? String)
            #expect(claims["sid"] is String && claims["nonce"] == nil)

            // The same token, replayed to a second endpoint of the same backend, is refused by its jti.
            let token = first["token"] as? String ?? ""
            let replay = try await rig.test.request(.POST, backend.url + "/backchannel-replay", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                                   body: "logout_token=" + token)
            #expect(replay.status == 400 && replay.text.contains("replay"), "\(replay.text)")

            // A second run on the device finds the session already ended: nothing more is owed.
            let again = try await rig.test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", json: ["apps": [appID]], key: device.key)
            #expect(again.status == 201 || again.status == 409, "\(again.text)")
            #expect(try await rig.test.server.deliverBackChannelLogouts() == 0)
        } catch {
            Issue.record(error)
        }
        backend.stop()
        try await rig.stop()
    }

    @Test(arguments: TestDatabase.available) func aBackendThatFailsIsRetriedAndTheRunShowsBothSides(database: TestDatabase) async throws {
        let (rig, issuer) = try await Self.rig(database)
        // A URL that answers 404: neither a success nor the backend's 400 refusal.
        let created = try await rig.test.request(.POST, "/api/v1/apps", json: [
            "name": "Handover", "appIDs": ["ABCDE12345.\(AppleRig.clientID)"], "logoutAction": "https://handover.example.com/logout",
            "backchannelLogoutURI": issuer + "/no-backend-here",
        ], key: rig.test.adminKey)
        #expect(created.status == 201 && created.json["backchannelLogoutSessionRequired"] as? Bool == false, "\(created.text)")
        let appID = created.json["id"] as? String ?? ""
        let device = try await rig.test.registerDevice()
        _ = try await rig.signIn(extra: ["scope": "openid device_sso", "deviceID": device.id])
        let run = try await rig.test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", json: ["apps": [appID]], key: device.key)
        let runID = run.json["id"] as? String ?? ""
        let pending = (run.json["items"] as? [[String: Any]])?.first?["backend"] as? [String: Any]
        #expect(pending?["state"] as? String == "pending" && pending?["attempts"] as? Int == 0, "\(run.text)")

        #expect(try await rig.test.server.deliverBackChannelLogouts() == 1)
        #expect(try await rig.test.server.deliverBackChannelLogouts() == 0, "the next attempt waits for its back-off")
        let report = try await rig.test.request(.GET, "/api/v1/logout-runs/\(runID)", key: device.key)
        let item = (report.json["items"] as? [[String: Any]])?.first
        #expect(item?["status"] as? String == "pending", "the device side: the app has not answered yet")
        let backend = item?["backend"] as? [String: Any]
        #expect(backend?["clientID"] as? String == AppleRig.clientID && backend?["state"] as? String == "pending", "\(report.text)")
        #expect(backend?["lastStatusCode"] as? Int == 404 && backend?["attempts"] as? Int == 1)
        rig.advance(3)
        #expect(try await rig.test.server.deliverBackChannelLogouts() == 1, "retried after the back-off")

        let browser = DashboardBrowser(rig.test)
        _ = try await browser.signIn(key: rig.test.adminKey)
        let overview = try await browser.get("/dashboard")
        #expect(overview.text.contains("backend") && overview.text.contains("last HTTP 404"), "the dashboard shows the backend side")
        try await rig.stop()
    }

    /// An app that signed in on a fleet device without asking for Native SSO is signed out by the
    /// device's hand-over too, and its backend is told (before, only device-SSO sessions ended).
    @Test(arguments: TestDatabase.available) func aSessionSignedInOnADeviceEndsAtHandOverWithoutNativeSSO(database: TestDatabase) async throws {
        let (rig, issuer) = try await Self.rig(database)
        let created = try await rig.test.request(.POST, "/api/v1/apps", json: [
            "name": "Handover", "appIDs": ["ABCDE12345.\(AppleRig.clientID)"], "logoutAction": "https://handover.example.com/logout",
            "backchannelLogoutURI": issuer + "/no-backend-here",
        ], key: rig.test.adminKey)
        let appID = created.json["id"] as? String ?? ""
        let device = try await rig.test.registerDevice()
        let other = try await rig.test.registerDevice("ward-8-phone-1")
        let onDevice = try await rig.signIn(sub: "nurse-a", extra: ["deviceID": device.id])
        let elsewhere = try await rig.signIn(sub: "nurse-b", extra: ["deviceID": other.id])
        #expect(onDevice["deviceSecret"] == nil, "no Native SSO was asked")
        let run = try await rig.test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", json: ["apps": [appID]], key: device.key)
        #expect(run.status == 201, "\(run.text)")
        #expect(try await rig.me(onDevice["accessToken"] as? String ?? "").status == 401, "the previous user's session ended with the hand-over")
        #expect(try await rig.refresh(onDevice["refreshToken"] as? String ?? "").status == 401)
        #expect(try await rig.me(elsewhere["accessToken"] as? String ?? "").status == 200, "another device's session is untouched")
        let backend = (run.json["items"] as? [[String: Any]])?.first?["backend"] as? [String: Any]
        #expect(backend?["state"] as? String == "pending", "its backend is owed a logout token: \(run.text)")
        try await rig.stop()
    }

    /// Client authentication at introspection (RFC 7662 §2.1) and revocation (RFC 7009 §2.1) is
    /// RFC 6749 §2.3's, whose §2.3.1 says an endpoint taking a client password MUST be protected
    /// against brute force. Wrong secrets slow their sender: past 30 in a minute from an address
    /// they answer 429 `slow_down` with `Retry-After`. A secret is 256 random bits, so the right
    /// one tells a guesser nothing it could reach: it is served whatever its address sent before
    /// (issue 63: one backend with a stale secret behind a proxy must not stop the others).
    @Test func wrongClientSecretsAre429ButTheRightOneFromTheSameAddressIsServed() async throws {
        let (rig, _) = try await Self.rig()
        let fleet = try await Self.register(rig.test, ["client_name": "Ward systems"])
        for attempt in 1...30 {
            let wrong = try await Self.form(rig.test, "/oauth/introspect", ["token": "x"], basic: (fleet.id, "hcs_wrong_\(attempt)"))
            #expect(wrong.status == 401, "attempt \(attempt): \(wrong.text)")
        }
        for path in ["/oauth/introspect", "/oauth/revoke"] {
            let wrong = try await Self.form(rig.test, path, ["token": "x"], basic: (fleet.id, "hcs_wrong"))
            #expect(wrong.status == 429 && wrong.json["error"] as? String == "slow_down", "\(path): \(wrong.status) \(wrong.text)")
            #expect(Int(wrong.headers.first(name: "Retry-After") ?? "") ?? 0 > 0, "\(path): Retry-After")
            let posted = try await Self.form(rig.test, path, ["token": "x", "client_id": fleet.id, "client_secret": "hcs_wrong"])
            #expect(posted.status == 429, "\(path), client_secret_post: \(posted.status)")
        }
        let introspected = try await Self.form(rig.test, "/oauth/introspect", ["token": "x"], basic: fleet)
        #expect(introspected.status == 200 && introspected.json["active"] as? Bool == false, "\(introspected.status) \(introspected.text)")
        let revoked = try await Self.form(rig.test, "/oauth/revoke", ["token": "x", "client_id": fleet.id, "client_secret": fleet.secret])
        #expect(revoked.status == 200, "RFC 7009 §2.2: an unknown token is 200 too: \(revoked.status) \(revoked.text)")
        let token = try await Self.form(rig.test, "/oauth/token", ["grant_type": "client_credentials"], basic: fleet)
        #expect(token.status == 200 && token.json["access_token"] != nil, "\(token.status) \(token.text)")
        try await rig.stop()
    }

    /// A client id with a NUL (schemathesis sent one): PostgreSQL refuses NUL in text, so the
    /// lookup answered 500; it must be an invalid_client like any other unknown id.
    @Test(arguments: TestDatabase.available) func aClientIDWithAControlCharacterIsAnInvalidClient(database: TestDatabase) async throws {
        let (rig, _) = try await Self.rig(database)
        for id in ["X\u{0}Y", "a\u{1B}b"] {
            let reply = try await Self.form(rig.test, "/oauth/introspect", ["token": "x", "client_id": id, "client_secret": "s"])
            #expect(reply.status == 401 && reply.json["error"] as? String == "invalid_client", "\(reply.status) \(reply.text)")
            let basic = try await Self.form(rig.test, "/oauth/revoke", ["token": "x"], basic: (id, "s"))
            #expect(basic.status == 401 && basic.json["error"] as? String == "invalid_client", "\(basic.status) \(basic.text)")
        }
        try await rig.stop()
    }

    /// Backends that accept a connection and never answer hold their own deliveries until the
    /// request times out (10 s), not everyone else's: a live backend gets its token at once.
    /// Before the fix a pass sent one delivery after another, so the live backend waited 10 s for
    /// each hung one sorted before it.
    @Test func aHungBackendDoesNotHoldUpTheOthers() async throws {
        let (rig, _) = try await Self.rig()
        let hung = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in channel.eventLoop.makeSucceededVoidFuture() }  // reads nothing, answers nothing
            .bind(host: "127.0.0.1", port: 0).get()
        let live = try await LoopbackServer.start(routes: ["/backchannel": .init(status: 200, contentType: "text/plain", body: "")])
        let hungURI = "http://127.0.0.1:\(hung.localAddress?.port ?? 0)/bcl"
        // Outbox rows are written app first, then fleet backends in the order they registered:
        // the live backend comes last.
        let appID = try await rig.test.registerTarget("handover")
        let patch = try await rig.test.request(.PATCH, "/api/v1/apps/\(appID)", json: ["backchannelLogoutURI": hungURI + "/app"],
                                               key: rig.test.adminKey)
        #expect(patch.status == 200, "\(patch.text)")
        for number in 1...4 {
            _ = try await Self.register(rig.test, ["client_name": "hung backend \(number)", "backchannel_logout_uri": hungURI + "/\(number)"])
        }
        _ = try await Self.register(rig.test, ["client_name": "live backend", "backchannel_logout_uri": live.origin + "/backchannel"])
        let device = try await rig.test.registerDevice()
        _ = try await rig.signIn(extra: ["deviceID": device.id])
        let run = try await rig.test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", json: ["apps": [appID]], key: device.key)
        #expect(run.status == 201, "\(run.text)")

        let pass = Task { try await rig.test.server.deliverBackChannelLogouts() }
        let started = ContinuousClock.now
        while live.received.isEmpty, started.duration(to: .now) < .seconds(9) { try await Task.sleep(for: .milliseconds(20)) }
        let waited = started.duration(to: .now)
        #expect(live.received.count == 1, "the live backend got its logout token")
        #expect(waited < .seconds(5), "the live backend waited \(waited) behind hung ones")
        #expect(try await pass.value == 6, "one pass attempts all six")
        try await live.shutdown()
        try await hung.close()
        try await rig.stop()
    }
}
