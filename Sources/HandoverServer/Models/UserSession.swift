import Fluent
import Foundation
import HandoverCore

/// One signed-in app instance: a family of refresh tokens, each used once. Its id is the `sid`
/// claim of every access token it issues; revoking it ends them all.
final class UserSession: Model, @unchecked Sendable {
    static let schema = "user_sessions"

    @ID(key: .id) var id: UUID?
    @Field(key: "user_id") var userID: UUID
    @Field(key: "created_at") var createdAt: Date
    @Field(key: "expires_at") var expiresAt: Date
    @OptionalField(key: "revoked_at") var revokedAt: Date?
    /// Why it ended: `logout`, `refresh_token_reused`, `apple_grant_revoked`, `consent_revoked`, `account_deleted`.
    @OptionalField(key: "revoke_reason") var revokeReason: String?
    /// The app (bundle id) the session belongs to, when known.
    @OptionalField(key: "client_id") var clientID: String?
    /// The device secret this session came with or was derived from (Native SSO): revoking it
    /// ends every such session.
    @OptionalField(key: "device_secret_id") var deviceSecretID: UUID?
    /// The fleet device the app said it runs on (`deviceID` at sign-in, or its device secret's):
    /// that device's logout run ends the session.
    @OptionalField(key: "device_id") var deviceID: UUID?

    init() {}
}

/// A refresh token: only its SHA-256 is stored. Used once; a second use revokes its session.
final class RefreshTokenRecord: Model, @unchecked Sendable {
    static let schema = "refresh_tokens"

    @ID(key: .id) var id: UUID?
    @Field(key: "session_id") var sessionID: UUID
    @Field(key: "token_hash") var tokenHash: String
    @Field(key: "created_at") var createdAt: Date
    @OptionalField(key: "used_at") var usedAt: Date?

    init() {}
}
