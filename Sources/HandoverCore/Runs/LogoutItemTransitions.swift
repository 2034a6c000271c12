import Foundation
import HandoverProtocol
import SQLKit

/// The SQL of an item's transitions (``LogoutItemState/on(_:)`` decides which; this writes it),
/// in one place for the callback recorder and the deadline scheduler: the runs' store's
/// statements on items, beside ``LogoutRunRows``. Every statement is a conditional update on a
/// pending item: the one that lands is the one that happened, so a callback or a deadline is
/// applied once across server instances.
package struct LogoutItemTransitions {
    package let sql: any SQLDatabase

    package init(sql: any SQLDatabase) {
        self.sql = sql
    }

    /// The transitions written through the runs' store (on its database, in its transaction).
    package init(_ rows: LogoutRunRows) {
        self.init(sql: rows.sql)
    }

    /// The transitions on `database` (a transaction's).
    package init(_ database: DatabaseHandle) throws {
        self.init(sql: try LogoutRunRows.sql(database))
    }

    /// One usual callback for ``finishByNonce(_:notifying:)``: the item of `run` to finish as `state`, if
    /// it is pending and its attempts reached `attempt` (the nonce's).
    package struct NonceFinish: Sendable, Equatable {
        package var item: UUID
        package var run: UUID
        package var attempt: Int
        package var state: LogoutItemState
        package var at: Date
        package var reportedBy: CallbackReporter
    }

    /// What ``finishByNonce(_:notifying:)`` did: the app name of each item it finished, by item, and, on
    /// PostgreSQL, which of their runs still have a pending item (counted by the same statement;
    /// nil on SQLite, where ``runsWithPendingItems(among:)`` counts them).
    package struct NonceFinishes: Sendable, Equatable {
        package var apps: [UUID: String]
        package var runsStillPending: Set<UUID>?
    }

    /// The callback fast path for a batch, in one statement: finishes each pending item whose
    /// attempts reached its nonce's (each item at most once in `finishes`). An item left out was
    /// not pending (a replay, a stranger's nonce: the caller checks those in full).
    ///
    /// On PostgreSQL the same statement says which of the finished items' runs still have a
    /// pending item: the caller holds their rows' locks (``LogoutRunRows/lockRuns(_:skippingLocked:)``),
    /// and the count's snapshot, taken after them, is the one the update's own reads used (it
    /// sees the items before the update, so the batch's finished items are left out by id).
    ///
    /// With a `notifying` channel (PostgreSQL), the same statement also sends one `NOTIFY` on it
    /// for each run it changed, its id as the payload (``RunChangeNotifier``): delivered at
    /// COMMIT, dropped on ROLLBACK, and one statement fewer in every batch.
    package func finishByNonce(_ finishes: [NonceFinish], notifying channel: String? = nil) async throws -> NonceFinishes {
        guard !finishes.isEmpty else { return NonceFinishes(apps: [:], runsStillPending: sql.dialect.name == "sqlite" ? nil : []) }
        // VALUES names its columns column1, column2, … on SQLite and PostgreSQL alike.
        let rows = finishes.map { finish -> SQLQueryString in
            """
            (\(bind: finish.item), \(bind: finish.run), \(bind: finish.attempt), \(bind: finish.state.rawValue), \
            \(bind: finish.at), \(bind: finish.reportedBy.rawValue))
            """
        }
        let update: SQLQueryString = """
            UPDATE logout_items SET status = answer.column4, finished_at = answer.column5, reported_by = answer.column6,
            version = version + 1
            FROM (VALUES \(SQLList(rows))) AS answer
            WHERE logout_items.id = answer.column1 AND logout_items.run_id = answer.column2
            AND logout_items.status = \(bind: LogoutItemState.pending.rawValue) AND logout_items.attempts >= answer.column3
            """
        guard sql.dialect.name != "sqlite" else {
            let finished = try await sql.raw("\(update) RETURNING id, app_name").all()
            return NonceFinishes(apps: try Dictionary(finished.map {
                (try $0.decode(column: "id", as: UUID.self), try $0.decode(column: "app_name", as: String.self))
            }) { first, _ in first }, runsStillPending: nil)
        }
        // A NOTIFY per changed run, sent by this statement.
        let notify: (cte: SQLQueryString, column: SQLQueryString) = channel.map { LogoutRunRows.notifying($0, runs: "SELECT DISTINCT run_id FROM answered") } ?? ("", "")
        let finished = try await sql.raw("""
            WITH answered AS (\(update) RETURNING logout_items.id, logout_items.run_id, logout_items.app_name)\(notify.cte)
            SELECT a.id, a.run_id, a.app_name, EXISTS (SELECT 1 FROM logout_items AS other WHERE other.run_id = a.run_id
            AND other.status = \(literal: LogoutItemState.pending.rawValue) AND other.id NOT IN (SELECT id FROM answered)) AS others_pending\(notify.column)
            FROM answered AS a
            """).all()
        var apps: [UUID: String] = [:], stillPending = Set<UUID>()
        for row in finished {
            apps[try row.decode(column: "id", as: UUID.self)] = try row.decode(column: "app_name", as: String.self)
            if try row.decode(column: "others_pending", as: Bool.self) { stillPending.insert(try row.decode(column: "run_id", as: UUID.self)) }
        }
        return NonceFinishes(apps: apps, runsStillPending: stillPending)
    }

    /// Which of `runs` still have a pending item (one statement for them all).
    package func runsWithPendingItems(among runs: [UUID]) async throws -> Set<UUID> {
        guard !runs.isEmpty else { return [] }
        let rows = try await sql.raw("""
            SELECT DISTINCT run_id FROM logout_items WHERE run_id IN (\(SQLList(runs.map { SQLBind($0) })))
            AND status = \(literal: LogoutItemState.pending.rawValue)
            """).all()
        return Set(try rows.map { try $0.decode(column: "run_id", as: UUID.self) })
    }

    /// The callback fast path: finishes a pending item of `run` whose attempts reached `attempt`
    /// (the nonce's), and counts the run's other pending items in the same statement. Nil when
    /// no such pending item exists (a replay, a stranger's nonce: the caller checks in full).
    package func finishByNonce(item: UUID, run: UUID, attempt: Int, as state: LogoutItemState, at now: Date,
                       reportedBy: CallbackReporter) async throws -> (app: String, othersPending: Int)? {
        let pending = LogoutItemState.pending.rawValue
        let rows = try await sql.raw("""
            UPDATE logout_items SET status = \(bind: state.rawValue), finished_at = \(bind: now),
            reported_by = \(bind: reportedBy.rawValue), version = version + 1
            WHERE id = \(bind: item) AND run_id = \(bind: run) AND status = \(bind: pending)
            AND attempts >= \(bind: attempt)
            RETURNING app_name, (SELECT COUNT(*) FROM logout_items AS other WHERE other.run_id = \(bind: run)
            AND other.status = \(literal: pending) AND other.id <> \(bind: item)) AS others_pending
            """).all()
        guard let row = rows.first else { return nil }
        return (try row.decode(column: "app_name", as: String.self), try row.decode(column: "others_pending", as: Int.self))
    }

    /// Finishes the pending item at `version` (a callback's full check, or a deadline with no
    /// reissue left). False when the item changed since it was read.
    package func finish(item: UUID, version: Int, as state: LogoutItemState, at now: Date, reportedBy: CallbackReporter?) async throws -> Bool {
        try await !sql.raw("""
            UPDATE logout_items SET status = \(bind: state.rawValue), finished_at = \(bind: now),
            reported_by = \(bind: reportedBy?.rawValue), version = version + 1
            WHERE id = \(bind: item) AND version = \(bind: version) AND status = \(bind: LogoutItemState.pending.rawValue) RETURNING id
            """).all().isEmpty
    }

    /// One deadline for ``reissue(_:at:)``: the pending item at `version` to issue again, the
    /// deadline it `missed`, and its new one.
    package struct Reissue: Sendable, Equatable {
        package var item: UUID
        package var version: Int
        package var missed: Date
        package var deadline: Date
    }

    /// Issues each pending item again, in two statements for them all: one more attempt (a new
    /// nonce) and a new deadline, then a row each in `logout_item_reissues` for the run's
    /// timeline (the deadline it missed). Returns the run of each item it reissued, by item; an
    /// item left out changed since it was read (a callback or another instance got there first).
    ///
    /// In a shift change past the server's capacity, nearly every item's deadline passes before
    /// its callback is written, so this is the writer's bulk path next to the callbacks'.
    package func reissue(_ reissues: [Reissue], at now: Date) async throws -> [UUID: UUID] {
        guard !reissues.isEmpty else { return [:] }
        // VALUES names its columns column1, column2, … on SQLite and PostgreSQL alike.
        let rows = reissues.map { reissue -> SQLQueryString in
            "(\(bind: reissue.item), \(bind: reissue.version), \(bind: reissue.deadline))"
        }
        let updated = try await sql.raw("""
            UPDATE logout_items SET attempts = attempts + 1, issued_at = \(bind: now),
            deadline_at = due.column3, version = version + 1
            FROM (VALUES \(SQLList(rows))) AS due
            WHERE logout_items.id = due.column1 AND logout_items.version = due.column2
            AND logout_items.status = \(bind: LogoutItemState.pending.rawValue)
            RETURNING id, run_id, attempts
            """).all()
        guard !updated.isEmpty else { return [:] }
        let asked = Dictionary(reissues.map { ($0.item, $0) }) { first, _ in first }
        var runs: [UUID: UUID] = [:]
        var inserts: [SQLQueryString] = []
        for row in updated {
            let item = try row.decode(column: "id", as: UUID.self)
            let run = try row.decode(column: "run_id", as: UUID.self)
            guard let reissue = asked[item] else { continue }
            runs[item] = run
            inserts.append("""
                (\(bind: UUID()), \(bind: run), \(bind: item), \(bind: try row.decode(column: "attempts", as: Int.self)), \
                \(bind: reissue.missed), \(bind: now), \(bind: reissue.deadline))
                """)
        }
        try await sql.raw("""
            INSERT INTO logout_item_reissues (id, run_id, item_id, attempt, missed_deadline_at, issued_at, deadline_at)
            VALUES \(SQLList(inserts))
            """).run()
        return runs
    }

    /// How many items of the run are still pending.
    package func pendingCount(run: UUID) async throws -> Int {
        try await sql.raw("""
            SELECT COUNT(*) AS pending_count FROM logout_items WHERE run_id = \(bind: run) AND status = \(literal: LogoutItemState.pending.rawValue)
            """).first()?.decode(column: "pending_count", as: Int.self) ?? 0
    }
}
