import Foundation
import HandoverCore
import Vapor

/// What a successful sign-in or refresh answers: a short-lived access token, a single-use
/// refresh token, and the user.
struct SessionGrant: Content {
    struct UserView: Content {
        var id: UUID
        var email: String?
    }

    var accessToken: String
    var refreshToken: String
    /// Seconds until the access token expires.
    var expiresIn: Int
    var tokenType = "Bearer"
    var user: UserView
    /// With scope `device_sso` (and on refreshing such a session): the ID token carrying `sid`
    /// and `ds_hash`, which sibling apps exchange at `POST /oauth/token`.
    var idToken: String?
    /// With scope `device_sso`, at sign-in only: the device secret to keep in shared storage.
    var deviceSecret: String?
}
