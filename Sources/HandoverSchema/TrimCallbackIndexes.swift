import FluentKit
import HandoverProtocol
import SQLKit

/// Version 27: a callback writes two of `logout_items`' indexes, not three.
///
/// A callback finishes its item: `status`, `finished_at`, `reported_by` and `version` change.
/// Each index over one of those columns (or whose `WHERE` names one) is written too, and on
/// SQLite each page it touches is one more page in the log, copied again by the checkpoint. A
/// shift change's callbacks land on items all over the table, so those pages are mostly
/// different ones: with three such indexes a batch of 16 callbacks wrote about 80 pages, and the
/// checkpoint's copying and syncing of them stalled a commit for about 20 ms every 300 ms
/// (issue 37: the closed loop's p99 was twice 39f22d9's, whose items had no such index).
///
/// - `logout_items_by_app (app_id, finished_at)` becomes `logout_items_finished_by_app`, the
///   same columns `WHERE finished_at IS NOT NULL`. The scorecards ask for an app's items finished
///   in a window (`finished_at >= …`, which implies the index's condition on SQLite and
///   PostgreSQL alike), so they search it as before; a callback adds its item's entry and no
///   longer moves one from the unfinished items' part of the index (a delete and an insert, on
///   two pages).
/// - `logout_items_pending_by_run (run_id) WHERE status = 'pending'` goes on SQLite (PostgreSQL
///   keeps it: see `prepare`). The statements that ask which of a batch's runs still have a
///   pending item search `logout_items_run (run_id)`, which a callback does not write, and read
///   those runs' items (a handful each, on the pages the batch has just written). Version 19
///   added it because SQLite then preferred `(status, deadline_at)` for a list of runs and read
///   every pending item of the fleet; that index is gone since, and `QueryPlanTests` holds each
///   of these statements to `logout_items_run`.
///
/// `logout_items_pending_due` stays: the deadline scheduler cannot find due items without it,
/// and a callback removes its entry (one page) and adds none.
struct TrimCallbackIndexes: HandoverMigration {
    func prepare(on database: Database) async throws {
        guard let sql = database as? SQLDatabase else { return }
        try await sql.raw("""
            CREATE INDEX IF NOT EXISTS logout_items_finished_by_app ON logout_items (app_id, finished_at) WHERE finished_at IS NOT NULL
            """).run()
        try await sql.raw("DROP INDEX IF EXISTS logout_items_by_app").run()
        // SQLite only: on PostgreSQL the 10,000-phone storm with two instances went from callback
        // p50/p99 243/752 ms to 1.2/3.0 s without it (two runs), its planner reading the runs'
        // pending items another way. The log and its checkpoint are SQLite's.
        if sql.dialect.name == "sqlite" {
            try await sql.raw("DROP INDEX IF EXISTS logout_items_pending_by_run").run()
        }
    }

    func revert(on database: Database) async throws {
        guard let sql = database as? SQLDatabase else { return }
        let pending = LogoutItemState.pending.rawValue
        try await sql.raw("CREATE INDEX IF NOT EXISTS logout_items_pending_by_run ON logout_items (run_id) WHERE status = \(literal: pending)").run()
        try await sql.raw("CREATE INDEX IF NOT EXISTS logout_items_by_app ON logout_items (app_id, finished_at)").run()
        try await sql.raw("DROP INDEX IF EXISTS logout_items_finished_by_app").run()
    }
}
