import FluentKit
import SQLKit

/// Version 37: a SIEM destination's cursor (`siem_cursors`) becomes a row of the one outbox
/// (issue 65): `status` (always `streaming`: a cursor is never settled), `version` (what a lease
/// is conditional on) and `last_status_code`, so that ``DeliveryOutbox`` leases, counts, backs off
/// and records it as it does every other delivery. Existing cursors keep where they stand.
struct AddSIEMCursorLeases: HandoverMigration {
    func prepare(on database: Database) async throws {
        // One column a statement (SQLite's ALTER TABLE adds one); the types Fluent gives `.string`
        // and `.int` on PostgreSQL, which SQLite reads as TEXT and INTEGER.
        guard let sql = database as? any SQLDatabase else { return }
        try await sql.raw("ALTER TABLE siem_cursors ADD COLUMN status TEXT NOT NULL DEFAULT 'streaming'").run()
        try await sql.raw("ALTER TABLE siem_cursors ADD COLUMN version BIGINT NOT NULL DEFAULT 0").run()
        try await sql.raw("ALTER TABLE siem_cursors ADD COLUMN last_status_code BIGINT").run()
    }

    func revert(on database: Database) async throws {
        try await database.schema("siem_cursors").deleteField("last_status_code").update()
        try await database.schema("siem_cursors").deleteField("version").update()
        try await database.schema("siem_cursors").deleteField("status").update()
    }
}
