import FluentKit
import SQLKit

/// Version 3: users (signed in with Apple or by email link), their sessions and refresh tokens,
/// sign-in nonces, processed notifications, and the access-token signing keys.
struct CreateUserSessions: HandoverMigration {
    func prepare(on database: Database) async throws {
        try await database.schema("users")
            .id()
            .field("apple_subject", .string)
            .field("apple_client_id", .string)
            .field("email", .string)
            .field("email_verified", .bool)
            .field("is_private_email", .bool)
            .field("email_forwarding_disabled", .bool, .required)
            .field("full_name", .string)
            .field("apple_refresh_token", .string)
            .field("apple_validated_at", .datetime)
            .field("apple_check_claimed_until", .datetime)
            .field("created_at", .datetime, .required)
            .unique(on: "apple_subject")
            .create()
        try await database.schema("user_sessions")
            .id()
            .field("user_id", .uuid, .required)
            .field("created_at", .datetime, .required)
            .field("expires_at", .datetime, .required)
            .field("revoked_at", .datetime)
            .field("revoke_reason", .string)
            .field("client_id", .string)
            .field("device_secret_id", .uuid)
            .create()
        try await database.schema("refresh_tokens")
            .id()
            .field("session_id", .uuid, .required)
            .field("token_hash", .string, .required)
            .field("created_at", .datetime, .required)
            .field("used_at", .datetime)
            .unique(on: "token_hash")
            .create()
        try await database.schema("apple_nonces")
            .id()
            .field("nonce_hash", .string, .required)
            .field("expires_at", .datetime, .required)
            .unique(on: "nonce_hash")
            .create()
        try await database.schema("apple_notifications")
            .id()
            .field("jti", .string, .required)
            .field("type", .string, .required)
            .field("subject", .string, .required)
            .field("received_at", .datetime, .required)
            .unique(on: "jti")
            .create()
        try await database.schema("session_signing_keys")
            .id()
            .field("kid", .string, .required)
            .field("sealed_private_key", .string, .required)
            .field("created_at", .datetime, .required)
            .unique(on: "kid")
            .create()
        if let sql = database as? any SQLDatabase {
            try await sql.raw("CREATE INDEX IF NOT EXISTS user_sessions_user ON user_sessions (user_id)").run()
            try await sql.raw("CREATE INDEX IF NOT EXISTS refresh_tokens_session ON refresh_tokens (session_id)").run()
            try await sql.raw("CREATE INDEX IF NOT EXISTS apple_nonces_expiry ON apple_nonces (expires_at)").run()
            try await sql.raw("CREATE INDEX IF NOT EXISTS user_sessions_device_secret ON user_sessions (device_secret_id)").run()
            try await sql.raw("CREATE INDEX IF NOT EXISTS users_email ON users (email)").run()
        }
    }

    func revert(on database: Database) async throws {
        for schema in ["session_signing_keys", "apple_notifications", "apple_nonces",
                       "refresh_tokens", "user_sessions", "users"] {
            try await database.schema(schema).delete()
        }
    }
}
