import AppleIDTestServer
import AppleSignIn
import Foundation
import Testing

/// Sign in with Apple on loopback for a `handover serve` process: Apple's test server kept up with
/// the wall clock before each sign-in (the server checks Apple's tokens against its own), the key file in `work`, and the
/// environment that points the server at both.
struct AppleOnLoopback {
    static let clientID = "com.example.handover"
    let apple: AppleIDTestServer
    let environment: [String: String]

    static func start(in work: URL) async throws -> AppleOnLoopback {
        let apple = try await AppleIDTestServer.start(clock: ManualClock(start: Date()))
        let pem = try apple.registerClient(clientID: clientID, teamID: "TEAM123456", keyID: "KEY1234567")
        let keyFile = work.appendingPathComponent("AuthKey.p8")
        try pem.write(to: keyFile, atomically: true, encoding: .utf8)
        return AppleOnLoopback(apple: apple, environment: [
            "HANDOVER_APPLE_CLIENT_IDS": clientID, "HANDOVER_APPLE_TEAM_ID": "TEAM123456", "HANDOVER_APPLE_KEY_ID": "KEY1234567",
            "HANDOVER_APPLE_PRIVATE_KEY_FILE": keyFile.path, "HANDOVER_APPLE_BASE_URL": apple.baseURL.absoluteString,
        ])
    }

    /// Signs `sub` in to the app on the fleet device `deviceID`, with Native SSO.
    func signIn(_ sub: String, deviceID: String, on server: ServerProcess) async throws {
        // The server process signs its client secret on the wall clock; Apple's test server
        // refuses an `iat` more than 60 s past its own clock. Its manual clock catches up first:
        // a suite under load takes longer than that between `start` and a sign-in (seen in a
        // full run: 41 `invalid_client` refusals in the SIGKILL tests).
        let behind = Date().timeIntervalSince(apple.clock.now)
        if behind > 0 { apple.clock.advance(by: behind) }
        let nonce = try #require(try await server.request("POST", "auth/apple/nonce").json["nonce"] as? String)
        let token = try await apple.makeIdentityToken(sub: sub, aud: Self.clientID, nonce: IdentityTokenVerifier.sha256Hex(nonce))
        let signIn = try await server.request("POST", "auth/apple", json: [
            "identityToken": token, "authorizationCode": apple.issueAuthorizationCode(clientID: Self.clientID, sub: sub),
            "nonce": nonce, "scope": "openid device_sso", "deviceID": deviceID,
        ])
        #expect(signIn.status == 200, "\(String(decoding: signIn.body, as: UTF8.self))")
    }

    /// Registers the app Apple signs in to, with `backchannelLogoutURI`; returns its id.
    static func registerApp(backchannelLogoutURI: String, on server: ServerProcess, key: String) async throws -> String {
        let app = try await server.request("POST", "api/v1/apps", json: [
            "name": "Handover", "appIDs": ["ABCDE12345.\(clientID)"], "logoutAction": "https://handover.example.com/logout",
            "backchannelLogoutURI": backchannelLogoutURI,
        ], key: key)
        #expect(app.status == 201, "\(String(decoding: app.body, as: UTF8.self))")
        return try #require(app.json["id"] as? String)
    }

    func shutdown() async throws { try await apple.shutdown() }
}
