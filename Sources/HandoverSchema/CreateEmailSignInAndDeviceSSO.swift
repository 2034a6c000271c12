import FluentKit
import SQLKit

/// Version 4: email sign-in link tokens and Native SSO device secrets.
struct CreateEmailSignInAndDeviceSSO: HandoverMigration {
    func prepare(on database: Database) async throws {
        try await database.schema("email_login_tokens")
            .id()
            .field("token_hash", .string, .required)
            .field("email", .string, .required)
            .field("created_at", .datetime, .required)
            .field("expires_at", .datetime, .required)
            .field("used_at", .datetime)
            .unique(on: "token_hash")
            .create()
        try await database.schema("device_secrets")
            .id()
            .field("secret_hash", .string, .required)
            .field("user_id", .uuid, .required)
            .field("device_id", .uuid)
            .field("client_id", .string, .required)
            .field("created_at", .datetime, .required)
            .field("revoked_at", .datetime)
            .unique(on: "secret_hash")
            .create()
        if let sql = database as? any SQLDatabase {
            try await sql.raw("CREATE INDEX IF NOT EXISTS device_secrets_device ON device_secrets (device_id)").run()
        }
    }

    func revert(on database: Database) async throws {
        try await database.schema("device_secrets").delete()
        try await database.schema("email_login_tokens").delete()
    }
}
