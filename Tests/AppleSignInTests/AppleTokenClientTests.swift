import AppleIDTestServer
import AppleSignIn
import Foundation
import Testing

@Suite("AppleTokenClient", .timeLimit(.minutes(5)))
struct AppleTokenClientTests {
    @Test("a code exchange returns tokens and sends Apple's form fields")
    func exchange() async throws {
        try await Fixture.with { f in
            let code = f.server.issueAuthorizationCode(clientID: Fixture.clientID, sub: "001.user", email: "u@example.com")
            let tokens = try await f.tokens.exchangeCode(code)
            #expect(tokens.tokenType == "Bearer")
            #expect(tokens.expiresIn == 3600)
            #expect(tokens.refreshToken?.isEmpty == false)
            let claims = try await f.verifier.verify(try #require(tokens.idToken), rawNonce: nil)
            #expect(claims.subject == "001.user")
            #expect(claims.email == "u@example.com")

            let request = try #require(f.server.requests(to: "/auth/token").last)
            #expect(request.method == "POST")
            #expect(request.headers["content-type"] == "application/x-www-form-urlencoded")
            let form = request.form
            #expect(form["grant_type"] == "authorization_code")
            #expect(form["code"] == code)
            #expect(form["client_id"] == Fixture.clientID)
            #expect(form["client_secret"]?.split(separator: ".").count == 3)
            #expect(form["redirect_uri"] == nil)
        }
    }

    @Test("redirect_uri is sent when given and must match the authorization's")
    func redirectURI() async throws {
        try await Fixture.with { f in
            let uri = "https://example.com/apple/callback?x=1&y=2"
            let code = f.server.issueAuthorizationCode(clientID: Fixture.clientID, sub: "u", redirectURI: uri)
            _ = try await f.tokens.exchangeCode(code, redirectURI: uri)
            #expect(f.server.requests(to: "/auth/token").last?.form["redirect_uri"] == uri)
            let other = f.server.issueAuthorizationCode(clientID: Fixture.clientID, sub: "u", redirectURI: uri)
            #expect(await tokenError { try await f.tokens.exchangeCode(other) }?.isInvalidGrant == true)
        }
    }

    @Test("a reused code is invalid_grant")
    func reusedCode() async throws {
        try await Fixture.with { f in
            let code = f.server.issueAuthorizationCode(clientID: Fixture.clientID, sub: "u")
            _ = try await f.tokens.exchangeCode(code)
            let error = await tokenError { try await f.tokens.exchangeCode(code) }
            #expect(error?.isInvalidGrant == true)
            #expect(error?.isTransient == false)
            guard case .rejected(.invalidGrant, _, 400) = error else {
                Issue.record("expected 400 invalid_grant, got \(String(describing: error))")
                return
            }
        }
    }

    @Test("a code older than 5 minutes is invalid_grant")
    func expiredCode() async throws {
        try await Fixture.with { f in
            let code = f.server.issueAuthorizationCode(clientID: Fixture.clientID, sub: "u")
            f.clock.advance(by: 301)
            #expect(await tokenError { try await f.tokens.exchangeCode(code) }?.isInvalidGrant == true)
        }
    }

    @Test("every form value is percent-encoded: + / = & and space arrive intact")
    func percentEncoding() async throws {
        try await Fixture.with { f in
            let code = "a+b/c=d& e%f~g"
            f.server.issueAuthorizationCode(code, clientID: Fixture.clientID, sub: "u")
            _ = try await f.tokens.exchangeCode(code)
            let request = try #require(f.server.requests(to: "/auth/token").last)
            #expect(request.rawFormValue("code") == "a%2Bb%2Fc%3Dd%26%20e%25f~g")
            #expect(request.form["code"] == code)
        }
    }

    @Test("a refresh token validates, a second validation within a day is throttled, and after a day it validates again")
    func refreshAndThrottle() async throws {
        try await Fixture.with { f in
            let code = f.server.issueAuthorizationCode(clientID: Fixture.clientID, sub: "u")
            let refresh = try #require(try await f.tokens.exchangeCode(code).refreshToken)
            let validated = try await f.tokens.validateRefreshToken(refresh)
            #expect(validated.tokenType == "Bearer")
            #expect(validated.expiresIn == 3600)
            let form = try #require(f.server.requests(to: "/auth/token").last).form
            #expect(form["grant_type"] == "refresh_token")
            #expect(form["refresh_token"] == refresh)

            f.clock.advance(by: 3600)
            let throttled = await tokenError { try await f.tokens.validateRefreshToken(refresh) }
            #expect(throttled == .throttled(retryAfterSeconds: 82800))
            #expect(throttled?.isInvalidGrant == false)
            #expect(throttled?.isTransient == true)

            f.clock.advance(by: 82800)
            _ = try await f.tokens.validateRefreshToken(refresh)
        }
    }

    @Test("an unknown refresh token is invalid_grant")
    func unknownRefreshToken() async throws {
        try await Fixture.with { f in
            #expect(await tokenError { try await f.tokens.validateRefreshToken("r-unknown") }?.isInvalidGrant == true)
        }
    }

    @Test("revoke answers 200 for unknown tokens, and a revoked refresh token is invalid_grant")
    func revoke() async throws {
        try await Fixture.with { f in
            try await f.tokens.revoke("never-issued")
            let code = f.server.issueAuthorizationCode(clientID: Fixture.clientID, sub: "u")
            let refresh = try #require(try await f.tokens.exchangeCode(code).refreshToken)
            try await f.tokens.revoke(refresh)
            #expect(f.server.isRevoked(refreshToken: refresh))
            let form = try #require(f.server.requests(to: "/auth/revoke").last).form
            #expect(form["token"] == refresh)
            #expect(form["token_type_hint"] == "refresh_token")
            #expect(form["client_id"] == Fixture.clientID)
            #expect(await tokenError { try await f.tokens.validateRefreshToken(refresh) }?.isInvalidGrant == true)
        }
    }

    @Test("a timeout is a transient error, not invalid_grant")
    func timeout() async throws {
        try await Fixture.with(tokenTimeout: .milliseconds(300)) { f in
            f.server.setOverride("/auth/token", .hang)
            let error = await tokenError { try await f.tokens.validateRefreshToken("r") }
            guard case .unavailable = error else {
                Issue.record("expected unavailable, got \(String(describing: error))")
                return
            }
            #expect(error?.isTransient == true)
            #expect(error?.isInvalidGrant == false)
        }
    }

    @Test("a 5xx is a transient error")
    func serverError() async throws {
        try await Fixture.with { f in
            f.server.setOverride("/auth/token", .respond(status: 503, body: "busy"))
            let error = await tokenError { try await f.tokens.validateRefreshToken("r") }
            #expect(error == .unavailable("Apple answered 503"))
        }
    }

    @Test("a connection refused is a transient error")
    func connectionRefused() async throws {
        try await Fixture.with { f in
            let port = f.server.port
            try await f.server.shutdown()
            let client = AppleTokenClient(clientSecret: f.secret, httpClient: f.http,
                                          baseURL: URL(string: "http://127.0.0.1:\(port)")!, timeout: .seconds(5))
            let error = await tokenError { try await client.validateRefreshToken("r") }
            #expect(error?.isTransient == true)
        }
    }

    @Test("a client secret Apple cannot verify is invalid_client")
    func invalidClient() async throws {
        try await Fixture.with { f in
            // A key the server never registered, under the same key id.
            let stray = try ClientSecret(privateKeyPEM: P256Key.fresh(), teamID: Fixture.teamID, keyID: Fixture.keyID,
                                         clientID: Fixture.clientID, now: f.clock.read)
            let client = AppleTokenClient(clientSecret: stray, httpClient: f.http, baseURL: f.server.baseURL)
            let error = await tokenError { try await client.validateRefreshToken("r") }
            guard case .rejected(.invalidClient, _, 400) = error else {
                Issue.record("expected invalid_client, got \(String(describing: error))")
                return
            }
        }
    }

    @Test("Apple's error JSON is read, description included")
    func errorDescription() async throws {
        try await Fixture.with { f in
            f.server.setOverride("/auth/token", .respond(status: 400, body: #"{"error":"invalid_scope","error_description":"nope"}"#))
            #expect(await tokenError { try await f.tokens.exchangeCode("c") } == .rejected(.invalidScope, description: "nope", status: 400))
        }
    }
}

import Crypto

enum P256Key {
    static func fresh() -> String { P256.Signing.PrivateKey().pemRepresentation }
}
