import Foundation
import JWTKit

/// An OpenID Connect Back-Channel Logout 1.0 Logout Token (section 2.4): the server tells a
/// client's backend that a session ended.
///
/// It carries `iss`, `aud`, `iat`, `exp`, `jti`, the `events` member naming
/// `http://schemas.openid.net/event/backchannel-logout`, and `sid` and/or `sub`; never a `nonce`.
/// ``SessionKeyRing/sign(logoutToken:)`` signs it with the header `typ: logout+jwt` (section 2.4,
/// as recommended by section 4.1 of RFC 8725).
public struct LogoutTokenClaims: JWTPayload, Equatable, Sendable {
    /// The member of `events` that marks a logout token.
    public static let eventType = "http://schemas.openid.net/event/backchannel-logout"
    /// The JWT `typ` header of a logout token.
    public static let headerType = "logout+jwt"

    /// The `events` claim: one member, an empty object.
    public struct Events: Codable, Equatable, Sendable {
        public init() {}

        private struct Empty: Codable {}
        private struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            guard container.contains(Key(stringValue: LogoutTokenClaims.eventType)) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "events lacks \(LogoutTokenClaims.eventType)"))
            }
        }

        public func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(Empty(), forKey: Key(stringValue: LogoutTokenClaims.eventType))
        }
    }

    public var issuer: IssuerClaim
    /// `aud`: the client id of the backend told.
    public var audience: String
    public var issuedAt: IssuedAtClaim
    public var expiresAt: ExpirationClaim
    public var tokenID: String
    public var events = Events()
    /// `sid`: the session that ended, as the client's tokens named it.
    public var sessionID: String?
    /// `sub`: the user whose session ended.
    public var subject: String?

    enum CodingKeys: String, CodingKey {
        case issuer = "iss", audience = "aud", issuedAt = "iat", expiresAt = "exp", tokenID = "jti", events
        case sessionID = "sid", subject = "sub"
    }

    /// - Parameters:
    ///   - issuer: `iss`: this server's issuer identifier.
    ///   - audience: `aud`: the client id of the backend told.
    ///   - sessionID: `sid`: the session that ended, when the backend knows sessions.
    ///   - subject: `sub`: the user whose session ended; `sid`, `sub` or both are given.
    ///   - issuedAt: `iat`, in whole seconds.
    ///   - lifetime: how long a backend may accept it after `issuedAt` (two minutes).
    ///   - tokenID: `jti`, which a backend remembers to refuse a replay.
    public init(issuer: String, audience: String, sessionID: String?, subject: String?, issuedAt: Date,
                lifetime: TimeInterval = 120, tokenID: String = TokenID.random()) {
        self.issuer = IssuerClaim(value: issuer)
        self.audience = audience
        self.sessionID = sessionID
        self.subject = subject
        self.issuedAt = IssuedAtClaim(value: issuedAt.wholeSeconds)
        self.expiresAt = ExpirationClaim(value: issuedAt.addingTimeInterval(lifetime).wholeSeconds)
        self.tokenID = tokenID
    }

    /// Checks are the receiver's (Back-Channel Logout section 2.6); the server only signs.
    public func verify(using algorithm: some JWTAlgorithm) async throws {}
}
