import FluentKit
import Foundation

/// One signed-in app instance: a family of refresh tokens, each used once. Its id is the `sid`
/// claim of every access token it issues; revoking it ends them all.
package final class UserSession: Model, @unchecked Sendable {
    package static let schema = "user_sessions"

    @ID(key: .id) package var id: UUID?
    @Field(key: "user_id") package var userID: UUID
    @Field(key: "created_at") package var createdAt: Date
    @Field(key: "expires_at") package var expiresAt: Date
    @OptionalField(key: "revoked_at") package var revokedAt: Date?
    /// Why it ended: `logout`, `refresh_token_reused`, `apple_grant_revoked`, `consent_revoked`, `account_deleted`.
    @OptionalField(key: "revoke_reason") package var revokeReason: String?
    /// The app (bundle id) the session belongs to, when known.
    @OptionalField(key: "client_id") package var clientID: String?
    /// The device secret this session came with or was derived from (Native SSO): revoking it
    /// ends every such session.
    @OptionalField(key: "device_secret_id") package var deviceSecretID: UUID?
    /// The fleet device the app said it runs on (`deviceID` at sign-in, or its device secret's):
    /// that device's logout run ends the session.
    @OptionalField(key: "device_id") package var deviceID: UUID?

    package init() {}
}

/// A refresh token: only its SHA-256 is stored. Used once; a second use revokes its session.
package final class RefreshTokenRecord: Model, @unchecked Sendable {
    package static let schema = "refresh_tokens"

    @ID(key: .id) package var id: UUID?
    @Field(key: "session_id") package var sessionID: UUID
    @Field(key: "token_hash") package var tokenHash: String
    @Field(key: "created_at") package var createdAt: Date
    @OptionalField(key: "used_at") package var usedAt: Date?

    package init() {}
}
