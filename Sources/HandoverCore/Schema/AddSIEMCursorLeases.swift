import FluentKit
import SQLKit

/// Version 37: a SIEM destination's cursor (`siem_cursors`) becomes a row of the one outbox
/// (issue 65): `status` (always `streaming`: a cursor is never settled), `version` (what a lease
/// is conditional on) and `last_status_code`, so that ``DeliveryOutbox`` leases, counts, backs off
/// and records it as it does every other delivery. Existing cursors keep where they stand.
struct AddSIEMCursorLeases: AsyncMigration {
    func prepare(on database: Database) async throws {
        try await database.schema("siem_cursors").field("status", .string, .required, .sql(.default(SIEMStream.streaming))).update()
        try await database.schema("siem_cursors").field("version", .int, .required, .sql(.default(0))).update()
        try await database.schema("siem_cursors").field("last_status_code", .int).update()
    }

    func revert(on database: Database) async throws {
        try await database.schema("siem_cursors").deleteField("last_status_code").update()
        try await database.schema("siem_cursors").deleteField("version").update()
        try await database.schema("siem_cursors").deleteField("status").update()
    }
}
