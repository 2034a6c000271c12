import Foundation

/// Why a token from the organisation's provider was refused. Each case says which claim or
/// header was wrong, what it held and what was expected, in a sentence the sign-in page shows and
/// the device history records. What the token held is a stranger's text until its signature is
/// checked, and some is read before: every value the sentence repeats is bounded
/// (``StrangerText``), so a 150 KB `kid` is a short prefix, its length and its hash.
package enum ProviderTokenRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    /// Not three base64url parts, or a header or payload that is not JSON.
    case malformed(String)
    /// `alg` is `none`, or an algorithm this server does not accept.
    case algorithm(String)
    /// The key id names no key in the provider's key set, even after fetching it again.
    case unknownKey(String)
    /// The signature does not verify with the provider's key.
    case badSignature
    /// `iss` is not the configured issuer.
    case wrongIssuer(found: String?, expected: String)
    /// `aud` does not hold this server's client id, or holds an audience it does not trust.
    case wrongAudience(found: [String], expected: String)
    /// `azp` is present and is not this server's client id.
    case wrongAuthorizedParty(found: String, expected: String)
    /// `exp` is missing or past.
    case expired(Date?)
    /// `iat` is missing, in the future, or too old.
    case issuedAt(Date?)
    /// `nonce` does not match the one this sign-in sent.
    case wrongNonce
    /// A claim the token must carry is missing (`sub`, or `sub` and `sid` in a logout token).
    case missingClaim(String)
    /// A logout token whose `events` lacks the back-channel logout event, or that carries a
    /// `nonce`, or whose `typ` is not `logout+jwt`.
    case notALogoutToken(String)
    /// The provider's key set could not be fetched.
    case keysUnavailable(String)
    /// A logout token whose `jti` this server has received before (Back-Channel Logout 1.0 §2.6).
    case replayed(jti: String)

    package var description: String {
        func shown(_ text: String) -> String { StrangerText.bounded(text) }
        return switch self {
        case .malformed(let detail): "the token is not a JWT (\(StrangerText.bounded(detail, limit: 300)))"
        case .algorithm(let alg): "the token's algorithm is '\(shown(alg))'; accepted: RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, EdDSA"
        case .unknownKey(let kid): "the token names the key '\(shown(kid))', which is not in the provider's key set"
        case .badSignature: "the token's signature does not verify with the provider's key"
        case .wrongIssuer(let found, let expected): "the token's issuer (iss) is '\(found.map(shown) ?? "missing")'; expected '\(expected)'"
        case .wrongAudience(let found, let expected):
            "the token's audience (aud) is [\(found.prefix(5).map { "'\(shown($0))'" }.joined(separator: ", "))\(found.count > 5 ? ", …" : "")]; "
                + "expected this server's client id '\(expected)' alone"
        case .wrongAuthorizedParty(let found, let expected): "the token's authorized party (azp) is '\(shown(found))'; expected '\(expected)'"
        case .expired(let date): date.map { "the token expired (exp) at \(Self.format($0))" } ?? "the token has no expiry (exp)"
        case .issuedAt(let date): date.map { "the token's issue time (iat) \(Self.format($0)) is in the future or too old" }
            ?? "the token has no issue time (iat)"
        case .wrongNonce: "the token's nonce does not match the one this sign-in sent"
        case .missingClaim(let claim): "the token has no '\(shown(claim))' claim"
        case .notALogoutToken(let detail): "not a logout token: \(StrangerText.bounded(detail, limit: 300))"
        case .keysUnavailable(let detail): "the provider's keys could not be fetched: \(StrangerText.bounded(detail, limit: 300))"
        case .replayed(let jti): "a logout token with the jti '\(shown(jti))' was received before: it acts once (Back-Channel Logout 1.0 §2.6)"
        }
    }

    private static func format(_ date: Date) -> String { date.formatted(.iso8601) }
}
