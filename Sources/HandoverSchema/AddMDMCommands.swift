import FluentKit
import SQLKit

/// Version 13: the outbox of MDM commands (lock, Lost Mode, erase) owed for devices that went
/// out of service or overdue, with their attempts and answers.
struct AddMDMCommands: HandoverMigration {
    func prepare(on database: Database) async throws {
        try await database.schema("mdm_commands")
            .id()
            .field("device_id", .uuid, .required)
            .field("connector", .string, .required)
            .field("action", .string, .required)
            .field("status", .string, .required)
            .field("trigger", .string, .required)
            .field("attempts", .int, .required)
            .field("next_attempt_at", .datetime, .required)
            .field("last_status_code", .int)
            .field("last_error", .string)
            .field("answer", .string)
            .field("confirmed_by", .string)
            .field("in_flight_since", .datetime)
            .field("created_at", .datetime, .required)
            .field("sent_at", .datetime)
            .field("version", .int, .required)
            .create()
        if let sql = database as? any SQLDatabase {
            try await sql.raw("CREATE INDEX mdm_commands_due ON mdm_commands (status, next_attempt_at)").run()
            try await sql.raw("CREATE INDEX mdm_commands_device ON mdm_commands (device_id, created_at)").run()
        }
    }

    func revert(on database: Database) async throws {
        try await database.schema("mdm_commands").delete()
    }
}
