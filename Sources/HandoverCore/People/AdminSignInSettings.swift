import Foundation

/// How people sign in to the dashboard through the organisation's OpenID Connect provider (Entra
/// ID, Okta, Keycloak, Ping, …), and which of them get which role (issue 39).
///
/// `handover serve` builds it from `--admin-oidc-issuer`, `--admin-oidc-client-id`,
/// `--admin-oidc-client-secret`, `--admin-role-claim` and `--admin-role-map`, or the
/// `HANDOVER_ADMIN_…` variables of the same meaning.
public struct AdminSignInSettings: Sendable {
    /// The provider's issuer, exactly as its discovery document and its ID tokens name it.
    public var issuer: String
    /// This server's client id at the provider.
    public var clientID: String
    /// The client secret, sent with HTTP Basic authentication to the token endpoint.
    public var clientSecret: String
    /// The ID token claim whose values map to roles (`groups` by default).
    public var roleClaim: String
    /// Which claim values grant which role, at which sites.
    package var roleMap: RoleMap
    /// Whether an admin key may still open the dashboard while a provider is configured
    /// (`--allow-key-sign-in`). Keys always work for the API.
    public var allowsKeySignIn: Bool

    /// The settings, checked: the issuer must be an https URL (or http on loopback, for a test
    /// provider), the client id and secret non-empty, the role map readable.
    ///
    /// - Throws: ``ConfigurationError`` naming the setting, what was wrong and what is accepted.
    public init(issuer: String, clientID: String, clientSecret: String, roleClaim: String = "groups", roleMap: String,
                allowsKeySignIn: Bool = false) throws {
        guard let url = URL(string: issuer), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty,
              url.query == nil, url.fragment == nil else {
            throw ConfigurationError(setting: "HANDOVER_ADMIN_OIDC_ISSUER", problem: "'\(issuer)' is not a URL",
                                     accepted: "the provider's issuer URL, such as https://login.example.com/realms/hospital")
        }
        let loopback = ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host.lowercased())
        guard scheme == "https" || (scheme == "http" && loopback) else {
            throw ConfigurationError(setting: "HANDOVER_ADMIN_OIDC_ISSUER", problem: "'\(issuer)' is not https",
                                     accepted: "an https URL (http only on loopback, for a test provider)")
        }
        guard !clientID.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ConfigurationError(setting: "HANDOVER_ADMIN_OIDC_CLIENT_ID", problem: "is empty",
                                     accepted: "the client id the provider gave this server")
        }
        guard !clientSecret.isEmpty else {
            throw ConfigurationError(setting: "HANDOVER_ADMIN_OIDC_CLIENT_SECRET", problem: "is empty",
                                     accepted: "the client secret the provider gave this server")
        }
        guard !roleClaim.isEmpty, roleClaim.allSatisfy({ $0.isLetter || $0.isNumber || "_-.:/".contains($0) }) else {
            throw ConfigurationError(setting: "HANDOVER_ADMIN_ROLE_CLAIM", problem: "'\(roleClaim)' is not a claim name",
                                     accepted: "a claim name such as groups, roles or wids")
        }
        do {
            self.roleMap = try RoleMap(parsing: roleMap)
        } catch let error as RoleMapError {
            throw ConfigurationError(setting: "HANDOVER_ADMIN_ROLE_MAP", problem: "entry \(error.entry) ('\(error.text.prefix(80))') \(error.problem)", accepted: RoleMap.acceptedForm)
        }
        self.issuer = issuer
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.roleClaim = roleClaim
        self.allowsKeySignIn = allowsKeySignIn
    }
}
