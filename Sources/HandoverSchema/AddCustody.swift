import FluentKit
import SQLKit

/// Version 23: custody, who held each device from check-out to check-in (issue 40).
///
/// `custodies_open (device_id) WHERE checked_in_at IS NULL` holds only the custodies in progress:
/// the hand-over's first statement asks it which devices of a batch are held, and a check-out asks
/// whether the person holds another device (`custodies_open_by_user`).
struct AddCustody: HandoverMigration {
    func prepare(on database: Database) async throws {
        try await database.schema("custodies")
            .id()
            .field("device_id", .uuid, .required)
            .field("user_id", .uuid, .required)
            .field("person_name", .string)
            .field("person_email", .string)
            .field("site", .string)
            .field("checked_out_by", .string, .required)
            .field("checked_out_at", .datetime, .required)
            .field("checked_in_at", .datetime)
            .field("run_id", .uuid)
            .field("ended_without_run", .string)
            .field("badge_digest", .string)
            .create()
        guard let sql = database as? SQLDatabase else { return }
        try await sql.raw("CREATE INDEX IF NOT EXISTS custodies_open ON custodies (device_id) WHERE checked_in_at IS NULL").run()
        try await sql.raw("CREATE INDEX IF NOT EXISTS custodies_open_by_user ON custodies (user_id) WHERE checked_in_at IS NULL").run()
        try await sql.raw("CREATE INDEX IF NOT EXISTS custodies_by_device ON custodies (device_id, checked_out_at)").run()
        try await sql.raw("CREATE INDEX IF NOT EXISTS custodies_by_user ON custodies (user_id, checked_out_at)").run()
    }

    func revert(on database: Database) async throws {
        try await database.schema("custodies").delete()
    }
}
