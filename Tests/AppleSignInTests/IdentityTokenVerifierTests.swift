import AppleIDTestServer
import AppleSignIn
import Crypto
import Foundation
import Testing

@Suite("IdentityTokenVerifier", .timeLimit(.minutes(5)))
struct IdentityTokenVerifierTests {
    @Test("a valid token verifies and its claims are decoded")
    func valid() async throws {
        try await Fixture.with { f in
            let nonce = IdentityTokenVerifier.sha256Hex("raw-nonce-1")
            let token = try await f.server.makeIdentityToken(sub: "001234.abcd", aud: Fixture.clientID, nonce: nonce,
                                                             email: "x@privaterelay.appleid.com")
            let claims = try await f.verifier.verify(token, rawNonce: "raw-nonce-1")
            #expect(claims.subject == "001234.abcd")
            #expect(claims.audience == Fixture.clientID)
            #expect(claims.email == "x@privaterelay.appleid.com")
            #expect(claims.emailVerified == true)
            #expect(claims.isPrivateEmail == true)
            #expect(claims.realUserStatus == .likelyReal)
            #expect(claims.nonce == nonce)
            #expect(claims.expiresAt == f.clock.now.addingTimeInterval(600).rounded)
        }
    }

    @Test("alg none is refused before any key is fetched")
    func algNone() async throws {
        try await Fixture.with { f in
            let claims = f.server.identityTokenClaims(sub: "u", aud: Fixture.clientID)
            let header = base64url(Data(#"{"alg":"none","kid":"\#(f.server.publishedKeyIDs[0])"}"#.utf8))
            let payload = base64url(Data(JSONValue.object(claims).jsonText.utf8))
            let error = await jwtError { try await f.verifier.verify("\(header).\(payload).", rawNonce: nil) }
            #expect(error == .unsupportedAlgorithm("none"))
            #expect(f.keyFetches == 0)
        }
    }

    @Test("HS256 signed with the RSA public key (key confusion) is refused before any key is fetched")
    func keyConfusion() async throws {
        try await Fixture.with { f in
            let kid = f.server.publishedKeyIDs[0]
            let pem = try #require(f.server.publicKeyPEM(kid: kid))
            let header = base64url(Data(#"{"alg":"HS256","kid":"\#(kid)","typ":"JWT"}"#.utf8))
            let payload = base64url(Data(JSONValue.object(f.server.identityTokenClaims(sub: "u", aud: Fixture.clientID)).jsonText.utf8))
            let mac = HMAC<SHA256>.authenticationCode(for: Data("\(header).\(payload)".utf8), using: SymmetricKey(data: Data(pem.utf8)))
            let forged = "\(header).\(payload).\(base64url(Data(mac)))"
            let error = await jwtError { try await f.verifier.verify(forged, rawNonce: nil) }
            #expect(error == .unsupportedAlgorithm("HS256"))
            #expect(f.keyFetches == 0)
        }
    }

    @Test("an expired token fails beyond the leeway and passes within it")
    func expired() async throws {
        try await Fixture.with { f in
            let token = try await f.server.makeIdentityToken(sub: "u", aud: Fixture.clientID)
            let exp = f.clock.now.addingTimeInterval(600).rounded
            f.clock.advance(by: 600 + 30)
            _ = try await f.verifier.verify(token, rawNonce: nil)
            f.clock.advance(by: 31)
            let error = await jwtError { try await f.verifier.verify(token, rawNonce: nil) }
            #expect(error == .expired(at: exp))
        }
    }

    @Test("a token for another client id fails on aud")
    func wrongAudience() async throws {
        try await Fixture.with { f in
            let token = try await f.server.makeIdentityToken(sub: "u", aud: "com.other.app")
            let error = await jwtError { try await f.verifier.verify(token, rawNonce: nil) }
            #expect(error == .audienceMismatch(found: ["com.other.app"], expected: [Fixture.clientID]))
        }
    }

    @Test("an audience array naming one configured client id passes")
    func audienceArray() async throws {
        try await Fixture.with { f in
            let token = try await f.server.makeIdentityToken(sub: "u", aud: "x", extra: ["aud": .array(["com.other", .string(Fixture.clientID)])])
            #expect(try await f.verifier.verify(token, rawNonce: nil).audience == Fixture.clientID)
        }
    }

    @Test("a token from another issuer fails on iss")
    func wrongIssuer() async throws {
        try await Fixture.with { f in
            let token = try await f.server.makeIdentityToken(sub: "u", aud: Fixture.clientID, extra: ["iss": "https://evil.example"])
            let error = await jwtError { try await f.verifier.verify(token, rawNonce: nil) }
            #expect(error == .issuerMismatch(found: "https://evil.example"))
        }
    }

    @Test("iat in the future fails beyond the leeway and passes within it")
    func futureIssuedAt() async throws {
        try await Fixture.with { f in
            let soon = try await f.server.makeIdentityToken(sub: "u", aud: Fixture.clientID, issuedAt: f.clock.now.addingTimeInterval(30))
            _ = try await f.verifier.verify(soon, rawNonce: nil)
            let later = f.clock.now.addingTimeInterval(120)
            let token = try await f.server.makeIdentityToken(sub: "u", aud: Fixture.clientID, issuedAt: later)
            let error = await jwtError { try await f.verifier.verify(token, rawNonce: nil) }
            #expect(error == .issuedInFuture(at: later.rounded))
        }
    }

    @Test("a tampered payload fails the signature")
    func tampered() async throws {
        try await Fixture.with { f in
            let token = try await f.server.makeIdentityToken(sub: "victim", aud: Fixture.clientID)
            let parts = token.split(separator: ".")
            var claims = try JSONDecoder().decode([String: JSONValue].self, from: try #require(base64urlDecode(parts[1])))
            claims["sub"] = "attacker"
            let forged = "\(parts[0]).\(base64url(Data(JSONValue.object(claims).jsonText.utf8))).\(parts[2])"
            let error = await jwtError { try await f.verifier.verify(forged, rawNonce: nil) }
            #expect(error == .badSignature)
        }
    }

    @Test("a token signed by a key that is not Apple's fails the signature even with a known kid")
    func foreignKey() async throws {
        try await Fixture.with { f in
            let published = f.server.publishedKeyIDs[0]
            let other = try await f.server.addSigningKey(published: false)
            let genuine = try await f.server.makeIdentityToken(sub: "u", aud: Fixture.clientID, kid: other)
            // Re-label the header with the published kid: the signature no longer matches that key.
            let parts = genuine.split(separator: ".")
            let header = base64url(Data(#"{"alg":"RS256","kid":"\#(published)","typ":"JWT"}"#.utf8))
            let error = await jwtError { try await f.verifier.verify("\(header).\(parts[1]).\(parts[2])", rawNonce: nil) }
            #expect(error == .badSignature)
        }
    }

    @Test("nonce: the claim must be the SHA-256 hex of the raw nonce presented")
    func nonce() async throws {
        try await Fixture.with { f in
            let token = try await f.server.makeIdentityToken(sub: "u", aud: Fixture.clientID, nonce: IdentityTokenVerifier.sha256Hex("right"))
            _ = try await f.verifier.verify(token, rawNonce: "right")
            #expect(await jwtError { try await f.verifier.verify(token, rawNonce: "wrong") } == .nonceMismatch)
            // The hash itself presented as the raw nonce must not pass.
            #expect(await jwtError { try await f.verifier.verify(token, rawNonce: IdentityTokenVerifier.sha256Hex("right")) } == .nonceMismatch)
            let without = try await f.server.makeIdentityToken(sub: "u", aud: Fixture.clientID)
            #expect(await jwtError { try await f.verifier.verify(without, rawNonce: "right") } == .nonceMismatch)
        }
    }

    @Test("the SHA-256 hex digest is the known one")
    func sha256Hex() {
        #expect(IdentityTokenVerifier.sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test("bool claims arrive as bools or as \"true\"/\"false\" strings", arguments: [
        (JSONValue.string("true"), JSONValue.string("false"), true, false),
        (JSONValue.bool(false), JSONValue.bool(true), false, true),
        (JSONValue.string("false"), JSONValue.bool(true), false, true),
    ])
    func tolerantBools(verified: JSONValue, privateEmail: JSONValue, expectedVerified: Bool, expectedPrivate: Bool) async throws {
        try await Fixture.with { f in
            let token = try await f.server.makeIdentityToken(sub: "u", aud: Fixture.clientID, extra: [
                "email": "a@example.com", "email_verified": verified, "is_private_email": privateEmail, "nonce_supported": verified,
            ])
            let claims = try await f.verifier.verify(token, rawNonce: nil)
            #expect(claims.emailVerified == expectedVerified)
            #expect(claims.isPrivateEmail == expectedPrivate)
            #expect(claims.nonceSupported == expectedVerified)
        }
    }

    @Test("real_user_status decodes 0, 1 and 2, and an unknown value is malformed")
    func realUserStatus() async throws {
        try await Fixture.with { f in
            for (raw, status) in [(0, RealUserStatus.unsupported), (1, .unknown), (2, .likelyReal)] {
                let token = try await f.server.makeIdentityToken(sub: "u", aud: Fixture.clientID, extra: ["real_user_status": .number(Double(raw))])
                #expect(try await f.verifier.verify(token, rawNonce: nil).realUserStatus == status)
            }
            let bad = try await f.server.makeIdentityToken(sub: "u", aud: Fixture.clientID, extra: ["real_user_status": 7])
            guard case .malformed = await jwtError({ try await f.verifier.verify(bad, rawNonce: nil) }) else {
                Issue.record("real_user_status 7 should be malformed")
                return
            }
        }
    }

    @Test("a bool claim with another string is malformed")
    func badBoolString() async throws {
        try await Fixture.with { f in
            let token = try await f.server.makeIdentityToken(sub: "u", aud: Fixture.clientID, extra: ["email_verified": "yes"])
            let error = await jwtError { try await f.verifier.verify(token, rawNonce: nil) }
            #expect(error.map { "\($0)" }?.contains("email_verified") == true)
        }
    }

    @Test("text that is not a JWT is malformed, without a key fetch", arguments: ["", "abc", "a.b", "a.b.c.d", "!!.e30.AA"])
    func malformed(token: String) async throws {
        try await Fixture.with { f in
            guard case .malformed = await jwtError({ try await f.verifier.verify(token, rawNonce: nil) }) else {
                Issue.record("\(token) should be malformed")
                return
            }
            #expect(f.keyFetches == 0)
        }
    }

    @Test("a missing sub is malformed")
    func missingSubject() async throws {
        try await Fixture.with { f in
            let token = try await f.server.makeIdentityToken(sub: "u", aud: Fixture.clientID, extra: ["sub": nil])
            #expect(await jwtError { try await f.verifier.verify(token, rawNonce: nil) } == .malformed("payload: missing sub"))
        }
    }
}

extension Date {
    /// Whole seconds, as JWT times are.
    var rounded: Date { Date(timeIntervalSince1970: timeIntervalSince1970.rounded(.down)) }
}
