import Crypto
import Foundation
import LinkCallbacks
import JWTKit

/// The server's own OpenID Connect ID token, issued with sessions that asked for `device_sso`
/// (OpenID Connect Native SSO for Mobile Apps): `sid` names the device session and `ds_hash`
/// binds the device secret, so a sibling app can exchange the pair for its own tokens.
public struct IDTokenClaims: JWTPayload, Equatable, Sendable {
    public var issuer: IssuerClaim
    /// `sub`: the user's id on this server.
    public var subject: SubjectClaim
    /// `aud`: the client id (bundle id) the token was issued to.
    public var audience: String
    public var issuedAt: IssuedAtClaim
    public var expiresAt: ExpirationClaim
    /// `sid`: the device session (the device secret's id).
    public var sessionID: String
    /// `ds_hash`: see ``deviceSecretHash(_:)``.
    public var deviceSecretHash: String?
    public var email: String?
    /// `jti`: a unique id for this token. Absent from tokens issued before it was added.
    public var tokenID: String?

    enum CodingKeys: String, CodingKey {
        case issuer = "iss", subject = "sub", audience = "aud", issuedAt = "iat", expiresAt = "exp"
        case sessionID = "sid", deviceSecretHash = "ds_hash", email, tokenID = "jti"
    }

    public init(issuer: String, userID: String, audience: String, sessionID: String, deviceSecretHash: String?,
                email: String?, issuedAt: Date, expiresAt: Date, tokenID: String? = TokenID.random()) {
        self.tokenID = tokenID
        self.issuer = IssuerClaim(value: issuer)
        self.subject = SubjectClaim(value: userID)
        self.audience = audience
        self.sessionID = sessionID
        self.deviceSecretHash = deviceSecretHash
        self.email = email
        self.issuedAt = IssuedAtClaim(value: issuedAt.wholeSeconds)
        self.expiresAt = ExpirationClaim(value: expiresAt.wholeSeconds)
    }

    public func verify(using algorithm: some JWTAlgorithm) async throws {}

    /// `ds_hash` for a device secret: base64url of the left half of its SHA-256, as `at_hash` is
    /// formed for ES256 tokens.
    public static func deviceSecretHash(_ secret: String) -> String {
        Base64URL.encode(SHA256.hash(data: Data(secret.utf8)).prefix(16))
    }

    /// The same `ds_hash`, from the secret's SHA-256 as lowercase hex (what a server stores), so
    /// an ID token can be reissued without the secret itself; `nil` for text that is not such a digest.
    public static func deviceSecretHash(sha256Hex digest: String) -> String? {
        let hex = Array(digest.utf8)
        guard hex.count == 64 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: 32, by: 2) {
            guard let byte = UInt8(String(decoding: hex[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return Base64URL.encode(bytes)
    }
}

extension SessionKeyRing {
    /// Signs an ID token with the newest key.
    public func sign(idToken claims: IDTokenClaims) async throws -> String {
        try await signPayload(claims)
    }

    /// Verifies an ID token's header, signature and `iss`, but not its expiry: Native SSO
    /// exchanges an ID token the sibling app read from shared storage, and its session is
    /// checked through the device secret instead.
    public func verifyIgnoringExpiry(idToken token: String) async throws(AccessTokenError) -> IDTokenClaims {
        let claims: IDTokenClaims = try await verifyPayload(token)
        guard claims.issuer.value == issuer else { throw .issuerMismatch(claims.issuer.value) }
        return claims
    }
}
