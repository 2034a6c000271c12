import FluentKit
import HandoverProtocol
import SQLKit

/// Version 19: the pending items indexed by themselves, and the MDM commands a device owes.
///
/// - `logout_items_pending_by_run (run_id) WHERE status = 'pending'`: a batch of callbacks asks
///   which of its runs still have a pending item. With only `run_id` and `(status, deadline_at)`
///   indexed, SQLite chose the second for a list of more than a few runs, and read every pending
///   item of the fleet for each batch: the callback rate halved (issue 37). Dropped in version
///   27 (``TrimCallbackIndexes``): with `(status, deadline_at)` gone, `logout_items_run` serves.
/// - `logout_items_pending_due (deadline_at) WHERE status = 'pending'`, in place of
///   `(status, deadline_at)`, for the deadline scheduler.
///
/// Both hold pending items only: a callback removes its item's entry from each and adds none,
/// where the full-table indexes moved an entry (a delete and an insert, often on two pages), and
/// each holds the shift change in progress, not the history. A statement uses them when it
/// names the state as a literal, `status = 'pending'` (SQLite cannot match a bound parameter to
/// an index's WHERE clause).
/// - `mdm_commands (device_id, status)`: the commands still owed by the devices of a batch of
///   finished runs, which SQLite otherwise looked up by state alone.
struct AddPendingItemIndexes: HandoverMigration {
    func prepare(on database: Database) async throws {
        guard let sql = database as? SQLDatabase else { return }
        let pending = LogoutItemState.pending.rawValue
        try await sql.raw("CREATE INDEX IF NOT EXISTS logout_items_pending_by_run ON logout_items (run_id) WHERE status = \(literal: pending)").run()
        try await sql.raw("CREATE INDEX IF NOT EXISTS logout_items_pending_due ON logout_items (deadline_at) WHERE status = \(literal: pending)").run()
        try await sql.raw("DROP INDEX IF EXISTS logout_items_due").run()
        try await sql.raw("CREATE INDEX IF NOT EXISTS mdm_commands_owed ON mdm_commands (device_id, status)").run()
    }

    func revert(on database: Database) async throws {
        guard let sql = database as? SQLDatabase else { return }
        try await sql.raw("CREATE INDEX IF NOT EXISTS logout_items_due ON logout_items (status, deadline_at)").run()
        try await sql.raw("DROP INDEX IF EXISTS logout_items_pending_due").run()
        try await sql.raw("DROP INDEX IF EXISTS logout_items_pending_by_run").run()
        try await sql.raw("DROP INDEX IF EXISTS mdm_commands_owed").run()
    }
}
