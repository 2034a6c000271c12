import Crypto
import Foundation
import SessionTokens
import Testing

@Suite("SessionKeyRing: access tokens signed and verified without a database", .timeLimit(.minutes(5)))
struct SessionKeyRingTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    func claims(user: String = "u1", session: String = "s1", lifetime: TimeInterval = 300, issuer: String = "https://h.example") -> AccessTokenClaims {
        AccessTokenClaims(issuer: issuer, userID: user, sessionID: session, tokenID: "t-\(user)-\(session)", email: "a@example.com",
                          issuedAt: start, expiresAt: start.addingTimeInterval(lifetime))
    }

    func ring(cache: Int = 10_000) async throws -> SessionKeyRing {
        let ring = SessionKeyRing(issuer: "https://h.example", cacheLimit: cache)
        try await ring.install(SessionSigningKey.generate(now: start))
        return ring
    }

    @Test func signsAndVerifies() async throws {
        let ring = try await ring()
        let token = try await ring.sign(claims())
        let verified = try await ring.verify(token, now: start.addingTimeInterval(10))
        #expect(verified == claims())
        #expect(verified.userID == "u1")
        let header = try #require(token.split(separator: ".").first)
        var padded = String(header)
        while padded.count % 4 != 0 { padded += "=" }
        let json = String(decoding: try #require(Data(base64Encoded: padded)), as: UTF8.self)
        #expect(json.contains("\"ES256\""))
        #expect(json.contains("\"kid\""))
    }

    @Test func expiredTokensFailEvenWhenCached() async throws {
        let ring = try await ring()
        let token = try await ring.sign(claims(lifetime: 300))
        _ = try await ring.verify(token, now: start)
        await #expect(throws: AccessTokenError.expired(at: start.addingTimeInterval(300))) {
            try await ring.verify(token, now: start.addingTimeInterval(300))
        }
    }

    @Test func tamperedPayloadFails() async throws {
        let ring = try await ring(cache: 0)
        let token = try await ring.sign(claims(user: "u1"))
        let parts = token.split(separator: ".").map(String.init)
        let forged = try await ring.sign(claims(user: "admin"))
        let forgedPayload = forged.split(separator: ".").map(String.init)[1]
        await #expect(throws: AccessTokenError.badSignature) {
            try await ring.verify([parts[0], forgedPayload, parts[2]].joined(separator: "."), now: start)
        }
    }

    @Test func otherAlgorithmsAndKeysAreRefusedBeforeAnyKey() async throws {
        let ring = try await ring()
        let token = try await ring.sign(claims())
        let parts = token.split(separator: ".").map(String.init)
        func b64(_ text: String) -> String {
            Data(text.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        }
        await #expect(throws: AccessTokenError.malformed("alg is 'none'; only ES256 is issued")) {
            try await ring.verify(b64(#"{"alg":"none","typ":"JWT"}"#) + "." + parts[1] + ".", now: start)
        }
        await #expect(throws: AccessTokenError.malformed("alg is 'HS256'; only ES256 is issued")) {
            try await ring.verify(b64(#"{"alg":"HS256","kid":"x"}"#) + "." + parts[1] + "." + parts[2], now: start)
        }
        await #expect(throws: AccessTokenError.unknownKey("0011223344556677")) {
            try await ring.verify(b64(#"{"alg":"ES256","kid":"0011223344556677"}"#) + "." + parts[1] + "." + parts[2], now: start)
        }
        await #expect(throws: AccessTokenError.self) { try await ring.verify("garbage", now: start) }
    }

    @Test func anotherServersKeyIsUnknown() async throws {
        let ours = try await ring()
        let theirs = try await ring()
        let token = try await theirs.sign(claims())
        await #expect(throws: AccessTokenError.self) { try await ours.verify(token, now: start) }
    }

    @Test func issuerMustBeThisServer() async throws {
        let ring = try await ring()
        let token = try await ring.sign(claims(issuer: "https://elsewhere.example"))
        await #expect(throws: AccessTokenError.issuerMismatch("https://elsewhere.example")) {
            try await ring.verify(token, now: start)
        }
    }

    @Test func rotationKeepsOldTokensUntilTheKeyIsRetired() async throws {
        let ring = try await ring()
        let old = try await ring.sign(claims())
        let oldKey = try #require(ring.signingKey)
        let newKey = SessionSigningKey.generate(now: start.addingTimeInterval(86_400))
        try await ring.install(newKey)
        #expect(ring.signingKey?.keyID == newKey.keyID)
        let new = try await ring.sign(claims())
        _ = try await ring.verify(old, now: start)
        _ = try await ring.verify(new, now: start)
        // Installing an older key does not take over signing.
        try await ring.install(SessionSigningKey.generate(now: start))
        #expect(ring.signingKey?.keyID == newKey.keyID)
        await ring.retain(only: [newKey.keyID])
        #expect(!ring.keyIDs.contains(oldKey.keyID))
        await #expect(throws: AccessTokenError.unknownKey(oldKey.keyID)) { try await ring.verify(old, now: start) }
        _ = try await ring.verify(new, now: start)
    }

    @Test func theCacheStaysBounded() async throws {
        let ring = try await ring(cache: 4)
        for index in 0..<10 {
            let token = try await ring.sign(claims(session: "s\(index)"))
            _ = try await ring.verify(token, now: start)
            _ = try await ring.verify(token, now: start)
        }
    }
}

@Suite("SecretSealer and RevocationList", .timeLimit(.minutes(5)))
struct SecretSealerTests {
    @Test func sealsAndOpens() throws {
        let sealer = try SecretSealer(base64: SecretSealer.generateKeyBase64())
        let sealed = try sealer.seal("r.apple-refresh-token")
        #expect(!sealed.contains("apple-refresh"))
        #expect(try sealer.openString(sealed) == "r.apple-refresh-token")
        #expect(try sealer.seal("same") != sealer.seal("same"), "a fresh nonce each time")
    }

    @Test func anotherKeyOrAlteredValueDoesNotOpen() throws {
        let sealer = try SecretSealer(base64: SecretSealer.generateKeyBase64())
        let other = try SecretSealer(base64: SecretSealer.generateKeyBase64())
        let sealed = try sealer.seal("secret")
        #expect(throws: SecretSealerError.cannotOpen) { try other.open(sealed) }
        var bytes = try #require(Data(base64Encoded: sealed))
        bytes[bytes.count - 1] ^= 1
        #expect(throws: SecretSealerError.cannotOpen) { try sealer.open(bytes.base64EncodedString()) }
    }

    @Test func badKeysAreNamed() {
        #expect(throws: SecretSealerError.notBase64) { try SecretSealer(base64: "not base64!") }
        #expect(throws: SecretSealerError.wrongKeySize(bytes: 16)) {
            try SecretSealer(base64: Data(repeating: 1, count: 16).base64EncodedString())
        }
    }

    @Test func revocationsExpireWithTheirTokens() {
        let list = RevocationList()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        list.revoke("s1", until: now.addingTimeInterval(300))
        #expect(list.isRevoked("s1"))
        #expect(!list.isRevoked("s2"))
        list.prune(now: now.addingTimeInterval(299))
        #expect(list.isRevoked("s1"))
        list.prune(now: now.addingTimeInterval(300))
        #expect(!list.isRevoked("s1"))
    }
}

@Suite("ID tokens for Native SSO", .timeLimit(.minutes(5)))
struct IDTokenTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func anIDTokenVerifiesIgnoringExpiryButIsNeverAnAccessToken() async throws {
        let ring = SessionKeyRing(issuer: "https://h.example")
        try await ring.install(SessionSigningKey.generate(now: start))
        let claims = IDTokenClaims(issuer: "https://h.example", userID: "u1", audience: "com.example.a", sessionID: "ds1",
                                   deviceSecretHash: IDTokenClaims.deviceSecretHash("secret"), email: nil,
                                   issuedAt: start, expiresAt: start.addingTimeInterval(300))
        let token = try await ring.sign(idToken: claims)
        #expect(try await ring.verifyIgnoringExpiry(idToken: token) == claims)
        await #expect(throws: AccessTokenError.self) { try await ring.verify(token, now: start) }
        // An access token is not an ID token either (it has no aud).
        let access = try await ring.sign(AccessTokenClaims(issuer: "https://h.example", userID: "u1", sessionID: "s1", email: nil,
                                                           issuedAt: start, expiresAt: start.addingTimeInterval(300)))
        await #expect(throws: AccessTokenError.self) { try await ring.verifyIgnoringExpiry(idToken: access) }
    }

    @Test func dsHashIsTheLeftHalfOfSHA256InBase64URL() {
        // SHA-256("abc") = ba7816bf8f01cfea414140de5dae2223 b00361a396177a9cb410ff61f20015ad
        #expect(IDTokenClaims.deviceSecretHash("abc") == "ungWv48Bz-pBQUDeXa4iIw")
        #expect(IDTokenClaims.deviceSecretHash(sha256Hex: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
                == "ungWv48Bz-pBQUDeXa4iIw")
    }
}

/// `iat` and `exp` are whole seconds: a validator that compares them with its own integral clock
/// (joserfc does) called a token issued 0.7 s into the current second "issued in the future".
@Suite struct WholeSecondTimesTests {
    static func payload(_ token: String) throws -> [String: Any] {
        var part = String(token.split(separator: ".")[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while part.count % 4 != 0 { part += "=" }
        return try JSONSerialization.jsonObject(with: Data(base64Encoded: part) ?? Data()) as? [String: Any] ?? [:]
    }

    @Test func accessIDAndLogoutTokensCarryWholeSeconds() async throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000.7)
        let ring = SessionKeyRing(issuer: "https://h.example")
        try await ring.install(SessionSigningKey.generate(now: now))
        let tokens = [
            try await ring.sign(AccessTokenClaims(issuer: "https://h.example", userID: "u", sessionID: "s", email: nil,
                                                  issuedAt: now, expiresAt: now.addingTimeInterval(300))),
            try await ring.sign(idToken: IDTokenClaims(issuer: "https://h.example", userID: "u", audience: "a", sessionID: "s",
                                                       deviceSecretHash: nil, email: nil, issuedAt: now, expiresAt: now.addingTimeInterval(300))),
            try await ring.sign(logoutToken: LogoutTokenClaims(issuer: "https://h.example", audience: "a", sessionID: "s", subject: "u", issuedAt: now)),
        ]
        for token in tokens {
            let claims = try Self.payload(token)
            #expect("\(claims["iat"] ?? "")" == "1800000000", "\(claims)")
            #expect(["1800000300", "1800000120"].contains("\(claims["exp"] ?? "")"), "\(claims)")
        }
    }
}
