import AppleIDTestServer
import AppleSignIn
import Crypto
import Foundation
import Testing

@Suite("ClientSecret", .timeLimit(.minutes(5)))
struct ClientSecretTests {
    static let pem = P256.Signing.PrivateKey().pemRepresentation

    struct Header: Decodable { var alg: String; var kid: String }
    struct Claims: Decodable { var iss: String; var iat: Int; var exp: Int; var aud: String; var sub: String }

    @Test("an ES256 JWT with kid, iss, iat, exp, aud and sub, verifiable with the key's public half")
    func shape() async throws {
        let key = P256.Signing.PrivateKey()
        let clock = ManualClock()
        let secret = try ClientSecret(privateKeyPEM: key.pemRepresentation, teamID: "TEAM123456", keyID: "ABCDEFGHIJ",
                                      clientID: "com.example.app", lifetime: 3600, now: clock.read)
        let jwt = try await secret.current()
        let parts = jwt.split(separator: ".")
        try #require(parts.count == 3)
        let header = try JSONDecoder().decode(Header.self, from: try #require(base64urlDecode(parts[0])))
        let claims = try JSONDecoder().decode(Claims.self, from: try #require(base64urlDecode(parts[1])))
        #expect(header.alg == "ES256")
        #expect(header.kid == "ABCDEFGHIJ")
        #expect(claims.iss == "TEAM123456")
        #expect(claims.sub == "com.example.app")
        #expect(claims.aud == "https://appleid.apple.com")
        #expect(claims.iat == Int(clock.now.timeIntervalSince1970))
        #expect(claims.exp - claims.iat == 3600)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: try #require(base64urlDecode(parts[2])))
        #expect(key.publicKey.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8)))
    }

    @Test("the secret is cached, and renewed before it expires")
    func renewal() async throws {
        let clock = ManualClock()
        let secret = try ClientSecret(privateKeyPEM: Self.pem, teamID: "TEAM123456", keyID: "ABCDEFGHIJ",
                                      clientID: "c", lifetime: 1000, renewalMargin: 100, now: clock.read)
        let first = try await secret.current()
        clock.advance(by: 899)
        #expect(try await secret.current() == first)
        clock.advance(by: 1)
        let second = try await secret.current()
        #expect(second != first)
        let claims = try JSONDecoder().decode(Claims.self, from: try #require(base64urlDecode(second.split(separator: ".")[1])))
        #expect(claims.iat == Int(clock.now.timeIntervalSince1970))
    }

    @Test("the maximum lifetime, 15,777,000 s, is accepted and one second more is refused")
    func lifetimeLimit() throws {
        _ = try ClientSecret(privateKeyPEM: Self.pem, teamID: "T", keyID: "ABCDEFGHIJ", clientID: "c", lifetime: 15_777_000)
        #expect(throws: ClientSecretError.invalidLifetime(seconds: 15_777_001)) {
            try ClientSecret(privateKeyPEM: Self.pem, teamID: "T", keyID: "ABCDEFGHIJ", clientID: "c", lifetime: 15_777_001)
        }
    }

    @Test("a key id that is not 10 characters is refused")
    func keyID() {
        #expect(throws: ClientSecretError.invalidKeyID("ABC")) {
            try ClientSecret(privateKeyPEM: Self.pem, teamID: "T", keyID: "ABC", clientID: "c")
        }
    }

    @Test("a private key that is not a P-256 PEM is refused")
    func badKey() {
        #expect {
            try ClientSecret(privateKeyPEM: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----", teamID: "T",
                             keyID: "ABCDEFGHIJ", clientID: "c")
        } throws: { error in
            if case ClientSecretError.invalidPrivateKey = error { return true }
            return false
        }
    }
}
