import FluentKit
import SQLKit

/// Version 8: OpenID Connect for backends. OAuth clients with hashed secrets (RFC 7591
/// registration), an app's Back-Channel Logout URI, and the durable outbox of logout tokens, at
/// most one per client and session.
struct AddOpenIDConnect: HandoverMigration {
    func prepare(on database: Database) async throws {
        try await database.schema("oauth_clients")
            .id()
            .field("client_id", .string, .required)
            .field("secret_hash", .string, .required)
            .field("client_name", .string)
            .field("software_id", .string)
            .field("backchannel_logout_uri", .string)
            .field("backchannel_logout_session_required", .bool, .required)
            .field("created_at", .datetime, .required)
            .unique(on: "client_id")
            .create()
        // One column per statement: SQLite adds one column per ALTER TABLE.
        try await database.schema("apps").field("backchannel_logout_uri", .string).update()
        try await database.schema("apps").field("backchannel_logout_session_required", .bool).update()
        try await database.schema("backchannel_logout_deliveries")
            .id()
            .field("client_id", .string, .required)
            .field("session_id", .string, .required)
            .field("subject", .string)
            .field("uri", .string, .required)
            .field("device_id", .uuid)
            .field("run_id", .uuid)
            .field("reason", .string, .required)
            .field("status", .string, .required)
            .field("attempts", .int, .required)
            .field("next_attempt_at", .datetime, .required)
            .field("last_status_code", .int)
            .field("last_error", .string)
            .field("created_at", .datetime, .required)
            .field("delivered_at", .datetime)
            .field("version", .int, .required)
            .unique(on: "client_id", "session_id")
            .create()
        if let sql = database as? any SQLDatabase {
            try await sql.raw("CREATE INDEX backchannel_deliveries_due ON backchannel_logout_deliveries (status, next_attempt_at)").run()
            try await sql.raw("CREATE INDEX backchannel_deliveries_run ON backchannel_logout_deliveries (run_id)").run()
        }
    }

    func revert(on database: Database) async throws {
        try await database.schema("backchannel_logout_deliveries").delete()
        try await database.schema("apps").deleteField("backchannel_logout_session_required").update()
        try await database.schema("apps").deleteField("backchannel_logout_uri").update()
        try await database.schema("oauth_clients").delete()
    }
}
