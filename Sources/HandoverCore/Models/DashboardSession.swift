import FluentKit
import Foundation

/// A signed-in dashboard browser. The cookie holds a random token; only its SHA-256 hash is
/// stored. Each session has its own CSRF token, which every form must send back.
package final class DashboardSession: Model, @unchecked Sendable {
    package static let schema = "dashboard_sessions"

    @ID(key: .id) package var id: UUID?
    @Field(key: "token_hash") package var tokenHash: String
    @Field(key: "csrf_token") package var csrfToken: String
    /// The admin key that signed in.
    @Field(key: "api_key_id") package var apiKeyID: UUID
    @Field(key: "created_at") package var createdAt: Date
    @Field(key: "expires_at") package var expiresAt: Date

    package init() {}
}
