import Foundation

/// The server's OpenID Provider Metadata (OpenID Connect Discovery 1.0 section 3, RFC 8414),
/// served at `/.well-known/openid-configuration`, with the Back-Channel Logout 1.0 (section 2.1),
/// RFC 7662 and RFC 7009 members. Field names are the specifications', letter for letter.
///
/// Sign-in happens inside the apps (Sign in with Apple, email links, Native SSO), not through an
/// authorization endpoint, so none is advertised and `response_types_supported` is empty
/// (RFC 8414 section 2: `authorization_endpoint` is required only when a grant type uses it).
struct OpenIDProviderMetadata: Codable, Equatable, Sendable {
    var issuer: String
    var jwksURI: String
    var tokenEndpoint: String
    var introspectionEndpoint: String
    var revocationEndpoint: String
    var registrationEndpoint: String
    var responseTypesSupported: [String] = []
    var grantTypesSupported = [OAuthTokenRoutes.tokenExchange, OAuthTokenRoutes.clientCredentials]
    var subjectTypesSupported = ["public"]
    var idTokenSigningAlgValuesSupported = ["ES256"]
    var tokenEndpointAuthMethodsSupported = ["none"] + ClientAuthentication.methods
    var introspectionEndpointAuthMethodsSupported = ClientAuthentication.methods
    var revocationEndpointAuthMethodsSupported = ClientAuthentication.methods
    var scopesSupported = ["openid", "email", "device_sso"]
    var claimsSupported = ["iss", "sub", "aud", "exp", "iat", "jti", "sid", "email", "ds_hash"]
    var backchannelLogoutSupported = true
    var backchannelLogoutSessionSupported = true

    enum CodingKeys: String, CodingKey {
        case issuer
        case jwksURI = "jwks_uri"
        case tokenEndpoint = "token_endpoint"
        case introspectionEndpoint = "introspection_endpoint"
        case revocationEndpoint = "revocation_endpoint"
        case registrationEndpoint = "registration_endpoint"
        case responseTypesSupported = "response_types_supported"
        case grantTypesSupported = "grant_types_supported"
        case subjectTypesSupported = "subject_types_supported"
        case idTokenSigningAlgValuesSupported = "id_token_signing_alg_values_supported"
        case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
        case introspectionEndpointAuthMethodsSupported = "introspection_endpoint_auth_methods_supported"
        case revocationEndpointAuthMethodsSupported = "revocation_endpoint_auth_methods_supported"
        case scopesSupported = "scopes_supported"
        case claimsSupported = "claims_supported"
        case backchannelLogoutSupported = "backchannel_logout_supported"
        case backchannelLogoutSessionSupported = "backchannel_logout_session_supported"
    }

    /// The metadata of the issuer `issuer` (an https origin, or http on loopback).
    init(issuer: String) {
        self.issuer = issuer
        jwksURI = issuer + OpenIDRoutes.jwksPath
        tokenEndpoint = issuer + "/oauth/token"
        introspectionEndpoint = issuer + TokenIntrospectionRoutes.path
        revocationEndpoint = issuer + TokenRevocationRoutes.path
        registrationEndpoint = issuer + ClientRegistrationRoutes.path
    }
}
