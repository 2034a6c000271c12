import Foundation

/// What Handover reads of the provider's discovery document,
/// `{issuer}/.well-known/openid-configuration` (OpenID Connect Discovery 1.0 §3 and §4).
package struct ProviderMetadata: Decodable, Sendable, Equatable {
    package var issuer: String
    package var authorizationEndpoint: URL
    package var tokenEndpoint: URL
    package var jwksURI: URL
    /// RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0 §2); absent at some providers.
    package var endSessionEndpoint: URL?
    package var codeChallengeMethodsSupported: [String]?

    enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case jwksURI = "jwks_uri"
        case endSessionEndpoint = "end_session_endpoint"
        case codeChallengeMethodsSupported = "code_challenge_methods_supported"
    }

    /// The document's URL for `issuer`: Discovery §4 appends the well-known path to the issuer,
    /// keeping its own path (`https://host/realms/x` → `https://host/realms/x/.well-known/…`).
    package static func discoveryURL(issuer: String) -> String {
        (issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer) + "/.well-known/openid-configuration"
    }
}
