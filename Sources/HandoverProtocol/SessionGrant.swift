import Foundation

/// What a successful sign-in or refresh answers (`POST /auth/email/redeem`, `POST /auth/apple`,
/// `POST /auth/refresh`): a short-lived access token, a single-use refresh token, and the user.
///
/// With scope `device_sso` it also carries the ID token and the device secret that sibling apps
/// of the same team exchange for their own sessions (OpenID Connect Native SSO).
public struct SessionGrant: Sendable, Hashable, Codable {
    /// The signed-in user.
    public struct UserView: Sendable, Hashable, Codable {
        public var id: UUID
        public var email: String?

        public init(id: UUID, email: String?) {
            self.id = id
            self.email = email
        }
    }

    /// An ES256 JWT for `Authorization: Bearer`; its `sid` names the session.
    public var accessToken: String
    /// Single use: a refresh answers a new one, and a reused one ends the session.
    public var refreshToken: String
    /// Seconds until the access token expires.
    public var expiresIn: Int
    /// Always `Bearer`.
    public var tokenType: String
    public var user: UserView
    /// With scope `device_sso` (and on refreshing such a session): the ID token carrying `sid`
    /// and `ds_hash`, which sibling apps exchange at `POST /oauth/token`.
    public var idToken: String?
    /// With scope `device_sso`, at sign-in only: the device secret to keep in shared storage.
    public var deviceSecret: String?

    public init(accessToken: String, refreshToken: String, expiresIn: Int, tokenType: String = "Bearer", user: UserView,
                idToken: String? = nil, deviceSecret: String? = nil) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
        self.tokenType = tokenType
        self.user = user
        self.idToken = idToken
        self.deviceSecret = deviceSecret
    }
}
