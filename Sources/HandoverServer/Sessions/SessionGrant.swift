import Foundation
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
}
