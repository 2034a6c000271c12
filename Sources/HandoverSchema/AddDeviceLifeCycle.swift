import FluentKit
import SQLKit

/// Version 11: a device's life cycle. Why a device is in its status and since when, when it last
/// completed a hand-over (overdue devices are counted from it), and its history: every step,
/// with the run, the reason, the admin's note and who acted.
struct AddDeviceLifeCycle: HandoverMigration {
    func prepare(on database: Database) async throws {
        // One column per statement: SQLite adds one column per ALTER TABLE.
        try await database.schema("devices").field("status_reason", .string).update()
        try await database.schema("devices").field("status_changed_at", .datetime).update()
        try await database.schema("devices").field("last_completed_at", .datetime).update()
        try await database.schema("device_history")
            .id()
            .field("device_id", .uuid, .required)
            .field("event", .string, .required)
            .field("from_status", .string, .required)
            .field("to_status", .string, .required)
            .field("run_id", .uuid)
            .field("reason", .string)
            .field("note", .string)
            .field("actor", .string, .required)
            .field("created_at", .datetime, .required)
            .create()
        if let sql = database as? any SQLDatabase {
            try await sql.raw("CREATE INDEX device_history_by_device ON device_history (device_id, created_at)").run()
        }
    }

    func revert(on database: Database) async throws {
        try await database.schema("device_history").delete()
        try await database.schema("devices").deleteField("last_completed_at").update()
        try await database.schema("devices").deleteField("status_changed_at").update()
        try await database.schema("devices").deleteField("status_reason").update()
    }
}
