import Foundation
import JWTKit

/// The `client_secret` Apple's token endpoints require: an ES256 JWT signed with the key from your
/// developer account (the `.p8` file), cached and renewed before it expires.
///
/// Header: `alg` ES256, `kid` the 10-character key id. Claims: `iss` your team id, `iat`, `exp`
/// (`iat` + ``lifetime``, at most 180 days), `aud` `https://appleid.apple.com`, `sub` your client id.
///
/// ```swift
/// let secret = try ClientSecret(privateKeyPEM: p8, teamID: "ABCDE12345", keyID: "KEY1234567",
///                               clientID: "com.example.app")
/// let jwt = try await secret.current()
/// ```
public actor ClientSecret {
    /// The longest lifetime Apple accepts: 15,777,000 seconds (about 180 days).
    public static let maximumLifetime: TimeInterval = 15_777_000

    public nonisolated let teamID: String
    public nonisolated let keyID: String
    public nonisolated let clientID: String
    /// How long each signed secret is valid.
    public nonisolated let lifetime: TimeInterval
    /// A new secret is signed once less than this remains of the current one's lifetime.
    public nonisolated let renewalMargin: TimeInterval

    private let signingKey: ES256PrivateKey
    /// Built on first use: registering a key with jwt-kit's collection is asynchronous.
    private var signer: JWTKeyCollection?
    private let now: @Sendable () -> Date
    private var cached: (jwt: String, expiresAt: Date)?

    /// - Parameters:
    ///   - privateKeyPEM: The contents of the `.p8` file (`-----BEGIN PRIVATE KEY-----`, PKCS#8 P-256).
    ///   - teamID: Your Apple developer team id (`iss`).
    ///   - keyID: The key's 10-character id (`kid`).
    ///   - clientID: Your app's bundle id or Services ID (`sub`); also sent as `client_id`.
    ///   - lifetime: How long each secret is valid; at most ``maximumLifetime``. One day by default.
    ///   - renewalMargin: Renew when less than this remains; a tenth of the lifetime by default.
    ///   - now: The clock.
    /// - Throws: ``ClientSecretError`` naming the invalid argument.
    public init(
        privateKeyPEM: String, teamID: String, keyID: String, clientID: String,
        lifetime: TimeInterval = 24 * 60 * 60, renewalMargin: TimeInterval? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws(ClientSecretError) {
        guard keyID.count == 10, keyID.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw .invalidKeyID(keyID)
        }
        guard !teamID.isEmpty, teamID.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw .invalidTeamID(teamID)
        }
        guard !clientID.isEmpty else { throw .invalidClientID }
        guard lifetime >= 1, lifetime <= Self.maximumLifetime else { throw .invalidLifetime(seconds: lifetime) }
        let key: ES256PrivateKey
        do { key = try ES256PrivateKey(pem: privateKeyPEM) } catch {
            throw .invalidPrivateKey("\(error)")
        }
        self.teamID = teamID
        self.keyID = keyID
        self.clientID = clientID
        self.lifetime = lifetime
        self.renewalMargin = min(renewalMargin ?? lifetime / 10, lifetime / 2)
        self.now = now
        self.signingKey = key
    }

    /// A valid client secret: the cached one, or a newly signed one when the cached one is within
    /// ``renewalMargin`` of expiring.
    public func current() async throws(ClientSecretError) -> String {
        let now = now()
        if let cached, now < cached.expiresAt.addingTimeInterval(-renewalMargin) { return cached.jwt }
        let keys: JWTKeyCollection
        if let signer { keys = signer } else {
            keys = await JWTKeyCollection().add(ecdsa: signingKey, kid: JWKIdentifier(string: keyID))
            signer = keys
        }
        let issuedAt = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        let expiresAt = issuedAt.addingTimeInterval(lifetime.rounded(.down))
        let claims = ClientSecretClaims(
            iss: teamID, iat: Int(issuedAt.timeIntervalSince1970), exp: Int(expiresAt.timeIntervalSince1970),
            aud: AppleID.issuer, sub: clientID
        )
        let jwt: String
        do { jwt = try await keys.sign(claims, kid: JWKIdentifier(string: keyID)) } catch {
            throw .signingFailed("\(error)")
        }
        cached = (jwt, expiresAt)
        return jwt
    }
}

/// The claims of a client secret, as Apple expects them.
struct ClientSecretClaims: JWTPayload {
    var iss: String
    var iat: Int
    var exp: Int
    var aud: String
    var sub: String

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
