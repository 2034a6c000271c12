import Foundation
import JWTKit

/// What an access token says: who (`sub`), for which client (`aud`), which session (`sid`), and
/// until when (`exp`).
///
/// Access tokens are short-lived JWTs signed by the server's own rotating key (ES256, with a
/// `kid`), so any instance, and any backend holding the JWKS, verifies them from the token alone,
/// without a database read. docs/backends.md lists the claims for resource servers.
public struct AccessTokenClaims: JWTPayload, Equatable, Sendable {
    /// `iss`: the server's public origin.
    public var issuer: IssuerClaim
    /// `sub`: the user's id on this server (not Apple's `sub`).
    public var subject: SubjectClaim
    /// `aud`: the client (an app's bundle id) the session was issued to, or the issuer when the
    /// session names no client. Absent from tokens issued before it was added.
    public var audience: String?
    /// `sid`: the session (refresh-token family) the token belongs to; revoking it ends the token.
    public var sessionID: String
    /// `jti`: a unique id for this token. Absent from tokens issued before it was added.
    public var tokenID: String?
    /// `email`, when the user shared one.
    public var email: String?
    /// `iat`.
    public var issuedAt: IssuedAtClaim
    /// `exp`.
    public var expiresAt: ExpirationClaim
    /// `token_use`: always `access`, so that an ID token signed by the same key is never taken
    /// for an access token.
    public var tokenUse: String = "access"

    enum CodingKeys: String, CodingKey {
        case issuer = "iss", subject = "sub", audience = "aud", sessionID = "sid", tokenID = "jti", email, issuedAt = "iat",
             expiresAt = "exp", tokenUse = "token_use"
    }

    public init(issuer: String, userID: String, audience: String? = nil, sessionID: String, tokenID: String? = TokenID.random(),
                email: String?, issuedAt: Date, expiresAt: Date) {
        self.issuer = IssuerClaim(value: issuer)
        self.subject = SubjectClaim(value: userID)
        self.audience = audience
        self.sessionID = sessionID
        self.tokenID = tokenID
        self.email = email
        self.issuedAt = IssuedAtClaim(value: issuedAt.wholeSeconds)
        self.expiresAt = ExpirationClaim(value: expiresAt.wholeSeconds)
    }

    /// The user id (`sub`).
    public var userID: String { subject.value }

    /// Time checks need the server's clock, so ``SessionKeyRing/verify(_:now:leeway:)`` makes them.
    public func verify(using algorithm: some JWTAlgorithm) async throws {}
}
