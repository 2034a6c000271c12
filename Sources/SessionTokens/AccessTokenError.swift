import Foundation

/// Why an access token was refused. Each case names the check that failed.
public enum AccessTokenError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not a compact JWT of ours: wrong shape, or a header this server never issues (another
    /// `alg`, `none`, no `kid`). Checked before any key is touched.
    case malformed(String)
    /// The `kid` names no key this server holds (a retired key, or another server's).
    case unknownKey(String)
    /// The ES256 signature does not match.
    case badSignature
    /// `exp` has passed (plus the leeway).
    case expired(at: Date)
    /// `iss` is not this server.
    case issuerMismatch(String)
    /// The session was revoked (sign-out, refresh-token reuse, Apple consent revoked, account deleted).
    case revoked

    public var description: String {
        switch self {
        case .malformed(let reason): "malformed access token: \(reason)"
        case .unknownKey(let kid): "access token signed with unknown key '\(kid)'"
        case .badSignature: "access token signature does not verify"
        case .expired(let at): "access token expired at \(ISO8601DateFormatter().string(from: at))"
        case .issuerMismatch(let iss): "access token issued by '\(iss)', not this server"
        case .revoked: "the session was revoked"
        }
    }
}
