import Foundation
import HandoverProtocol
import SQLKit

/// The SQL reads and writes of a run's rows on the shift change's path, as plain values: a run
/// and its items read with one statement each, a new run written with two. (Fluent models cost
/// a reflection of every field per row; a shift change reads a run's items several times.)
package struct LogoutRunRows {
    package let sql: any SQLDatabase

    package init(sql: any SQLDatabase) {
        self.sql = sql
    }

    /// The run, or nil when there is none.
    package func run(_ id: UUID) async throws -> Run? {
        guard let row = try await sql.raw("""
            SELECT device_id, status, created_at, finished_at FROM logout_runs WHERE id = \(bind: id)
            """).first() else { return nil }
        return Run(id: id, deviceID: try row.decode(column: "device_id", as: UUID.self),
                   status: try row.decode(column: "status", as: LogoutRunState.self),
                   createdAt: try row.decode(column: "created_at", as: Date.self),
                   finishedAt: try row.decode(column: "finished_at", as: Date?.self))
    }

    private static let itemColumns = SQLQueryString("""
        id, run_id, app_id, app_name, position, status, attempts, deadline_at, issued_at, finished_at, reported_by, version, logout_method
        """)

    /// The run's items in their order (links are not made here).
    package func items(run: UUID) async throws -> [Item] {
        try await sql.raw("SELECT \(Self.itemColumns) FROM logout_items WHERE run_id = \(bind: run) ORDER BY position")
            .all().map(Self.item(row:))
    }

    /// The items of several runs, each run's in their order.
    package func items(runs: [UUID]) async throws -> [UUID: [Item]] {
        guard !runs.isEmpty else { return [:] }
        let rows = try await sql.raw("""
            SELECT \(Self.itemColumns) FROM logout_items WHERE run_id IN (\(SQLList(runs.map { SQLBind($0) }))) ORDER BY run_id, position
            """).all().map(Self.item(row:))
        return Dictionary(grouping: rows, by: \.runID)
    }

    /// Pending items whose deadline (``TurnDeadline``, from an app's turn for a first link) is at
    /// or before `now`, at most `limit`, those whose link's own deadline is the earliest first.
    ///
    /// A deadline from a turn is never earlier than the link's own, so only the items whose
    /// stored deadline passed are candidates. They are read in the order of that deadline (the
    /// `logout_items_pending_due` index), so the statement stops at the `limit`-th due item; in
    /// the order of the turn's deadline it would compute every candidate's turn and sort them
    /// all, in every pass. Past the server's capacity thousands of items wait for their turn with
    /// their own deadline passed: that order took a 10,000-phone storm from callbacks at 130-150
    /// ms to 0.8-1.6 s (p50), three runs of three.
    ///
    /// Most passes find no candidate, and a short statement says so first: with no row to read,
    /// the turn's statement costs about ten times the short one, nearly all of it in preparing
    /// it (108 against 10 µs on an empty table, SQLite), and the scheduler asks ten times a second.
    package func due(at now: Date, limit: Int) async throws -> [Due] {
        guard try await sql.raw("SELECT 1 FROM logout_items WHERE \(Self.candidates(at: now)) LIMIT 1").first() != nil else { return [] }
        return try await sql.raw(Self.dueStatement(at: now, limit: limit)).all().map { row in
            Due(item: try Self.item(row: row), deadline: try row.decode(column: "due_at", as: Date.self))
        }
    }

    /// The statement of ``due(at:limit:)`` after its short one.
    static func dueStatement(at now: Date, limit: Int) -> SQLQueryString {
        """
        SELECT * FROM (SELECT \(Self.itemColumns), \(TurnDeadline.sql) AS due_at FROM logout_items WHERE \(candidates(at: now))) AS candidates
        WHERE due_at <= \(bind: now) ORDER BY deadline_at LIMIT \(literal: limit)
        """
    }

    /// The due query's candidates, pending items whose stored deadline passed, as both its
    /// statements ask for them (the `logout_items_pending_due` partial index's condition).
    private static func candidates(at now: Date) -> SQLQueryString {
        "status = \(literal: LogoutItemState.pending.rawValue) AND deadline_at <= \(bind: now)"
    }

    private static func item(row: any SQLRow) throws -> Item {
        Item(view: LogoutRunView.Item(
                id: try row.decode(column: "id", as: UUID.self), appID: try row.decode(column: "app_id", as: UUID.self),
                app: try row.decode(column: "app_name", as: String.self), position: try row.decode(column: "position", as: Int.self),
                status: try row.decode(column: "status", as: LogoutItemState.self),
                attempts: try row.decode(column: "attempts", as: Int.self),
                issuedAt: try row.decode(column: "issued_at", as: Date.self),
                deadlineAt: try row.decode(column: "deadline_at", as: Date.self),
                finishedAt: try row.decode(column: "finished_at", as: Date?.self),
                reportedBy: try row.decode(column: "reported_by", as: CallbackReporter?.self)),
             runID: try row.decode(column: "run_id", as: UUID.self),
             version: try row.decode(column: "version", as: Int.self),
             method: try row.decode(column: "logout_method", as: LogoutMethod?.self))
    }

    /// A new run to write: its device, when it started, and its pending items (first attempts).
    package struct NewRun: Sendable {
        package var id: UUID
        package var deviceID: UUID
        package var createdAt: Date
        package var items: [LogoutRunView.Item]
        /// The start's idempotency key, when the launcher sent one.
        package var key: RunStartKey? = nil
    }

    /// A run a device started with an idempotency key: its id, and the digest of what that start
    /// asked for (``RunStartKey``).
    package struct KeyedRun: Sendable, Equatable {
        package var id: UUID
        package var digest: String?
    }

    /// The runs these devices started with these keys, by device and key (one statement; read only
    /// for starts whose key was taken, so not on a shift change's usual path).
    package func runs(startedWith keys: [(device: UUID, key: String)]) async throws -> [DeviceKey: KeyedRun] {
        guard !keys.isEmpty else { return [:] }
        let rows = try await sql.raw("""
            SELECT id, device_id, start_key, start_digest FROM logout_runs
            WHERE device_id IN (\(SQLList(Set(keys.map(\.device)).map { SQLBind($0) }))) AND start_key IN (\(SQLList(Set(keys.map(\.key)).map { SQLBind($0) })))
            """).all()
        var found: [DeviceKey: KeyedRun] = [:]
        for row in rows {
            let key = DeviceKey(device: try row.decode(column: "device_id", as: UUID.self), key: try row.decode(column: "start_key", as: String.self))
            found[key] = KeyedRun(id: try row.decode(column: "id", as: UUID.self), digest: try row.decode(column: "start_digest", as: String?.self))
        }
        return found
    }

    /// A device and an idempotency key of its run starts.
    package struct DeviceKey: Sendable, Hashable {
        package var device: UUID
        package var key: String
    }

    /// Writes new running runs and their items in the caller's transaction: one statement for
    /// the runs, and one for every 2,000 items (26,000 values, under SQLite's limit of 32,766).
    /// Each item keeps its app's logout method from `methods` (by app id), as the run started.
    ///
    /// A run whose start carried an idempotency key its device already used (``RunStartKey``) is
    /// not written, nor are its items: the runs' statement skips it (`ON CONFLICT DO NOTHING` on
    /// the unique `(device_id, start_key)`), and its id is returned. With no key in the batch the
    /// statement is the plain `INSERT`.
    ///
    /// - Returns: the ids of the runs not written, their keys taken.
    @discardableResult
    package func insert(_ runs: [NewRun], methods: [UUID: LogoutMethod] = [:]) async throws -> Set<UUID> {
        guard !runs.isEmpty else { return [] }
        let running = LogoutRunState.running.rawValue
        // A batch with a key finds a taken one in this statement; one without stays a plain INSERT.
        let keyed = runs.contains { $0.key != nil }
        let statement = sql.raw("""
            INSERT INTO logout_runs (id, device_id, status, created_at, finished_at, start_key, start_digest)
            VALUES \(SQLList(runs.map { "(\(bind: $0.id), \(bind: $0.deviceID), \(bind: running), \(bind: $0.createdAt), NULL, \(bind: $0.key?.key), \(bind: $0.key?.digest))" as SQLQueryString }))
            \(unsafeRaw: keyed ? "ON CONFLICT (device_id, start_key) DO NOTHING RETURNING id" : "")
            """)
        var skipped = Set<UUID>()
        if keyed {
            skipped = Set(runs.map(\.id)).subtracting(try await statement.all().map { try $0.decode(column: "id", as: UUID.self) })
        } else {
            try await statement.run()
        }
        let items = runs.filter { !skipped.contains($0.id) }.flatMap { run in run.items.map { (run.id, $0) } }
        for start in stride(from: 0, to: items.count, by: 2_000) {
            let rows = items[start..<min(start + 2_000, items.count)].map { run, item -> SQLQueryString in
                """
                (\(bind: item.id), \(bind: run), \(bind: item.appID), \(bind: item.app), \(bind: item.position), \
                \(bind: item.status.rawValue), \(bind: item.attempts), \(bind: item.deadlineAt), \(bind: item.issuedAt), NULL, NULL, 0, \
                \(bind: methods[item.appID]?.rawValue))
                """
            }
            try await sql.raw("""
                INSERT INTO logout_items (id, run_id, app_id, app_name, position, status, attempts, deadline_at, issued_at,
                finished_at, reported_by, version, logout_method) VALUES \(SQLList(rows))
                """).run()
        }
        return skipped
    }
}
