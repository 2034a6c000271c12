import FluentKit
import SQLKit

/// Version 5: out-of-band operations, the phones enrolled for them, and the callback allowlist.
struct CreateOutOfBand: HandoverMigration {
    func prepare(on database: Database) async throws {
        try await database.schema("oob_operations")
            .id()
            .field("type", .string, .required)
            .field("user_handle", .string, .required)
            .field("message", .string)
            .field("dispatcher", .string, .required)
            .field("status", .string, .required)
            .field("challenge", .string, .required)
            .field("number_choices", .string)
            .field("correct_number", .int)
            .field("device_id", .string)
            .field("callbacks", .string)
            .field("created_at", .datetime, .required)
            .field("updated_at", .datetime, .required)
            .field("expires_at", .datetime, .required)
            .field("answered_by", .string)
            .field("failure_code", .string)
            .field("failure_reason", .string)
            .field("push_outcome", .string)
            .field("browser_secret_hash", .string)
            .field("session_claimed_at", .datetime)
            .create()
        try await database.schema("enrolled_devices")
            .field("id", .string, .identifier(auto: false))
            .field("user_handle", .string, .required)
            .field("signing_key", .string, .required)
            .field("agreement_key", .string, .required)
            .field("push_token", .string)
            .field("push_token_active", .bool, .required)
            .field("enrolled_at", .datetime, .required)
            .field("deregistered_at", .datetime)
            .create()
        try await database.schema("oob_callback_allowlists")
            .field("id", .string, .identifier(auto: false))
            .field("hosts", .string, .required)
            .field("schemes", .string, .required)
            .field("updated_at", .datetime, .required)
            .create()
        try await database.schema("users")
            .field("oob_user_handle", .string)
            .update()
        if let sql = database as? any SQLDatabase {
            try await sql.raw("CREATE INDEX IF NOT EXISTS oob_operations_due ON oob_operations (status, expires_at)").run()
            try await sql.raw("CREATE INDEX IF NOT EXISTS enrolled_devices_user ON enrolled_devices (user_handle, enrolled_at)").run()
        }
    }

    func revert(on database: Database) async throws {
        try await database.schema("users").deleteField("oob_user_handle").update()
        try await database.schema("oob_callback_allowlists").delete()
        try await database.schema("enrolled_devices").delete()
        try await database.schema("oob_operations").delete()
    }
}
