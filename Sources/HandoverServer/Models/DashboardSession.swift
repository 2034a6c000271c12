import Fluent
import Foundation
import HandoverCore

/// A signed-in dashboard browser. The cookie holds a random token; only its SHA-256 hash is
/// stored. Each session has its own CSRF token, which every form must send back.
final class DashboardSession: Model, @unchecked Sendable {
    static let schema = "dashboard_sessions"

    @ID(key: .id) var id: UUID?
    @Field(key: "token_hash") var tokenHash: String
    @Field(key: "csrf_token") var csrfToken: String
    /// The admin key that signed in.
    @Field(key: "api_key_id") var apiKeyID: UUID
    @Field(key: "created_at") var createdAt: Date
    @Field(key: "expires_at") var expiresAt: Date

    init() {}
}
