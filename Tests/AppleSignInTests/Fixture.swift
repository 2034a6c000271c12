import AppleIDTestServer
import AppleSignIn
import AsyncHTTPClient
import Crypto
import Foundation
import Testing

/// A running AppleIDTestServer, an HTTP client and the module's components, all on one manual clock.
struct Fixture {
    static let clientID = "com.example.handover"
    static let teamID = "TEAM123456"
    static let keyID = "KEYID12345"

    let server: AppleIDTestServer
    let clock: ManualClock
    let http: HTTPClient
    let keySet: AppleKeySet
    let verifier: IdentityTokenVerifier
    let notifications: ServerNotificationVerifier
    let secret: ClientSecret
    let tokens: AppleTokenClient

    /// Key fetches the server has answered so far.
    var keyFetches: Int { server.requests(to: "/auth/keys").count }

    /// Runs `body` with a fresh fixture and shuts everything down afterwards.
    static func with(tokenTimeout: Duration = .seconds(10), _ body: (Fixture) async throws -> Void) async throws {
        let clock = ManualClock()
        let server = try await AppleIDTestServer.start(clock: clock)
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            let keySet = AppleKeySet(baseURL: server.baseURL, httpClient: http, now: clock.read)
            let pem = try server.registerClient(clientID: clientID, teamID: teamID, keyID: keyID)
            let secret = try ClientSecret(privateKeyPEM: pem, teamID: teamID, keyID: keyID, clientID: clientID, now: clock.read)
            let fixture = Fixture(
                server: server, clock: clock, http: http, keySet: keySet,
                verifier: IdentityTokenVerifier(clientIDs: [clientID], keySet: keySet, now: clock.read),
                notifications: ServerNotificationVerifier(clientIDs: [clientID], keySet: keySet, now: clock.read),
                secret: secret,
                tokens: AppleTokenClient(clientSecret: secret, httpClient: http, baseURL: server.baseURL, timeout: tokenTimeout)
            )
            try await body(fixture)
        } catch {
            try? await http.shutdown()
            try? await server.shutdown()
            throw error
        }
        try await http.shutdown()
        try await server.shutdown()
    }
}

/// Base64url without padding, for forging tokens in tests.
func base64url(_ bytes: some DataProtocol) -> String {
    Data(bytes).base64EncodedString()
        .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}

func base64urlDecode(_ text: Substring) -> Data? {
    var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while s.count % 4 != 0 { s += "=" }
    return Data(base64Encoded: s)
}

/// Runs `body` and returns the `AppleJWTError` it threw, or nil if it returned (another error is
/// recorded as a test issue).
func jwtError(_ body: () async throws -> some Any) async -> AppleJWTError? {
    do { _ = try await body(); return nil } catch let error as AppleJWTError { return error } catch {
        Issue.record("expected an AppleJWTError, got \(error)")
        return nil
    }
}

/// Runs `body` and returns the `AppleTokenError` it threw, or nil if it returned.
func tokenError(_ body: () async throws -> some Any) async -> AppleTokenError? {
    do { _ = try await body(); return nil } catch let error as AppleTokenError { return error } catch {
        Issue.record("expected an AppleTokenError, got \(error)")
        return nil
    }
}
