import Foundation
import HandoverProtocol
import SQLKit

/// The runs area's store: the SQL reads and writes of a run's rows on the shift change's path,
/// as plain values: a run and its items read with one statement each, a new run written with
/// two, the runs' locks and ends, the apps a run links to, and the NOTIFY that tells live views.
/// (Fluent models cost a reflection of every field per row; a shift change reads a run's items
/// several times.) The item transitions' statements are ``LogoutItemTransitions``; the
/// dashboard's reads, `RunListing`.
package struct LogoutRunRows {
    package let sql: any SQLDatabase

    package init(sql: any SQLDatabase) {
        self.sql = sql
    }

    /// The rows on `database` (a request's, a transaction's, or SQLite's readers).
    package init(_ database: DatabaseHandle) throws {
        self.init(sql: try Self.sql(database))
    }

    /// The database as SQL (SQLite and PostgreSQL both are).
    static func sql(_ database: DatabaseHandle) throws -> any SQLDatabase {
        return try ServerDatabases.sql(database, code: "no_sql")
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
    /// With a `notifying` channel (PostgreSQL), the runs' statement also sends one `NOTIFY` on it
    /// for each run it wrote, its id as the payload (``RunChangeNotifier``): delivered at COMMIT,
    /// dropped on ROLLBACK, and one statement fewer in every batch of run starts.
    ///
    /// - Returns: the ids of the runs not written, their keys taken.
    @discardableResult
    package func insert(_ runs: [NewRun], methods: [UUID: LogoutMethod] = [:], notifying channel: String? = nil) async throws -> Set<UUID> {
        guard !runs.isEmpty else { return [] }
        let running = LogoutRunState.running.rawValue
        // A batch with a key finds a taken one in this statement; one without stays a plain INSERT.
        let keyed = runs.contains { $0.key != nil }
        let insert: SQLQueryString = """
            INSERT INTO logout_runs (id, device_id, status, created_at, finished_at, start_key, start_digest)
            VALUES \(SQLList(runs.map { "(\(bind: $0.id), \(bind: $0.deviceID), \(bind: running), \(bind: $0.createdAt), NULL, \(bind: $0.key?.key), \(bind: $0.key?.digest))" as SQLQueryString }))
            \(unsafeRaw: keyed ? "ON CONFLICT (device_id, start_key) DO NOTHING RETURNING id" : "")
            """
        let statement = sql.raw(channel.map { channel in
            let notify = Self.notifying(channel, runs: "SELECT id AS run_id FROM started")
            return """
                WITH started AS (\(insert)\(unsafeRaw: keyed ? "" : " RETURNING id"))\(notify.cte)
                SELECT id\(notify.column) FROM started
                """
        } ?? insert)
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

    /// Whether the device exists (one read by primary key).
    package func deviceExists(_ deviceID: UUID) async throws -> Bool {
        try await sql.raw("SELECT 1 AS found FROM devices WHERE id = \(bind: deviceID)").first() != nil
    }

    /// The device the run belongs to, if the run exists (one read by primary key).
    package func device(ofRun runID: UUID) async throws -> UUID? {
        try await sql.raw("SELECT device_id FROM logout_runs WHERE id = \(bind: runID)").first()?
            .decode(column: "device_id", as: UUID.self)
    }

    /// Takes the run's row lock (PostgreSQL) or the write lock (SQLite); false when there is no such run.
    package static func lockRun(_ runID: UUID, on db: DatabaseHandle) async throws -> Bool {
        guard let sql = db as? any SQLDatabase else { return false }
        let rows = try await sql.raw("UPDATE logout_runs SET status = status WHERE id = \(bind: runID) RETURNING id").all()
        return !rows.isEmpty
    }

    /// PostgreSQL: locks the runs that exist among `ids`, in id order, in one statement (the lock
    /// a no-op update of each takes, so it waits on ``lockRun(_:on:)`` and is waited on by it);
    /// returns those it locked.
    ///
    /// - Parameter skippingLocked: leave out the runs another transaction holds instead of
    ///   waiting for them (the deadline scheduler: another instance is firing them, or a
    ///   callback batch is recording them; the next pass looks again).
    func lockRuns(_ ids: Set<UUID>, skippingLocked: Bool = false) async throws -> Set<UUID> {
        guard !ids.isEmpty else { return [] }
        let rows = try await sql.raw("""
            SELECT id FROM logout_runs WHERE id IN (\(SQLList(ids.map { SQLBind($0) }))) ORDER BY id FOR NO KEY UPDATE\
            \(unsafeRaw: skippingLocked ? " SKIP LOCKED" : "")
            """).all()
        return Set(try rows.map { try $0.decode(column: "id", as: UUID.self) })
    }

    /// Writes the end of each run of `ending` still running (its state and time; its items are
    /// the caller's), in one `UPDATE … FROM (VALUES …)`. Returns the device and start of each
    /// run it finished, by run.
    func finish(_ ending: [(run: UUID, at: Date, state: LogoutRunState, items: [Item])]) async throws -> [UUID: (device: UUID, createdAt: Date)] {
        // VALUES names its columns column1, column2, … on SQLite and PostgreSQL alike.
        let values = SQLList(ending.map { "(\(bind: $0.run), \(bind: $0.state.rawValue), \(bind: $0.at))" as SQLQueryString })
        let updated = try await sql.raw("""
            UPDATE logout_runs SET status = ending.column2, finished_at = ending.column3 FROM (VALUES \(values)) AS ending
            WHERE logout_runs.id = ending.column1 AND logout_runs.status = \(bind: LogoutRunState.running.rawValue)
            RETURNING logout_runs.id AS id, logout_runs.device_id AS device_id, logout_runs.created_at AS created_at
            """).all()
        var rows: [UUID: (device: UUID, createdAt: Date)] = [:]
        for row in updated {
            rows[try row.decode(column: "id", as: UUID.self)] = (try row.decode(column: "device_id", as: UUID.self),
                                                                 try row.decode(column: "created_at", as: Date.self))
        }
        return rows
    }

    private static let appColumns = SQLQueryString("id, name, logout_action, logout_method, deadline_seconds, max_reissues")

    /// Every target app, in the order they were registered (a run's default list).
    package func targetApps() async throws -> [RunApp] {
        try await sql.raw("SELECT \(Self.appColumns) FROM apps WHERE role = \(bind: AppRole.target.rawValue) ORDER BY created_at").all().map(RunApp.init(row:))
    }

    /// The apps with these ids that exist, by id.
    package func apps(withIDs ids: Set<UUID>) async throws -> [UUID: RunApp] {
        guard !ids.isEmpty else { return [:] }
        let rows = try await sql.raw("SELECT \(Self.appColumns) FROM apps WHERE id IN (\(binds: Array(ids)))").all()
        return Dictionary(try rows.map { row in let app = try RunApp(row: row); return (app.id, app) }) { first, _ in first }
    }

    /// On PostgreSQL, the parts that make a statement with a `WITH` also send a NOTIFY on
    /// `channel` for each run of `runs` (a query with a `run_id` column), its uuid's text as the
    /// payload: `cte` goes after the statement's last CTE, `column` after its `SELECT` list's
    /// last column. A CTE that calls a volatile function is evaluated once, whole, when the query
    /// reads it (`column`'s count); delivered at COMMIT, dropped on ROLLBACK (``RunChangeNotifier``).
    static func notifying(_ channel: String, runs: SQLQueryString) -> (cte: SQLQueryString, column: SQLQueryString) {
        (", notified AS (SELECT pg_notify(\(bind: channel), changed.run_id::text) FROM (\(runs)) AS changed)",
         ", (SELECT COUNT(*) FROM notified) AS notified")
    }

    /// On PostgreSQL, in the caller's transaction: a NOTIFY on `channel` for each of `payloads`,
    /// in one statement; the database delivers them at COMMIT and drops them on ROLLBACK.
    func notify(_ channel: String, payloads: [String]) async throws {
        try await sql.raw("SELECT pg_notify(\(bind: channel), run) FROM unnest(\(bind: payloads)::text[]) AS run").run()
    }

    /// On PostgreSQL, outside a transaction: a NOTIFY on `channel` with `payload` (nothing on a
    /// database that does not speak SQL).
    static func notify(_ channel: String, payload: String, on database: DatabaseHandle) async throws {
        guard let sql = database as? any SQLDatabase else { return }
        try await sql.raw("SELECT pg_notify(\(bind: channel), \(bind: payload))").run()
    }
}

extension RunApp {
    /// The app in a row of `apps` read with ``LogoutRunRows``' columns.
    init(row: any SQLRow) throws {
        self.init(id: try row.decode(column: "id", as: UUID.self), name: try row.decode(column: "name", as: String.self),
                  logoutAction: try row.decode(column: "logout_action", as: String?.self),
                  logoutMethod: try row.decode(column: "logout_method", as: LogoutMethod?.self),
                  deadlineSeconds: try row.decode(column: "deadline_seconds", as: Int.self),
                  maxReissues: try row.decode(column: "max_reissues", as: Int.self))
    }
}

extension TurnDeadline {
    /// The same deadline as an SQL expression over the row `logout_items` of the enclosing
    /// statement: seconds on SQLite (SQLiteNIO stores a date as a REAL), `timestamptz` plus an
    /// interval on PostgreSQL, so one text serves both. The turn is one correlated subquery on
    /// the `logout_items_run` index, with no answer after the link's issue when it did not begin
    /// later (then the link's own deadline). The due statement (``LogoutRunRows/due(at:limit:)``)
    /// reads it.
    package static let sql: SQLQueryString = """
        CASE WHEN logout_items.attempts = 1 AND COALESCE(logout_items.logout_method, '') <> \(literal: LogoutMethod.backendOnly.rawValue)
        THEN COALESCE((SELECT MAX(earlier.finished_at) + (logout_items.deadline_at - logout_items.issued_at)
        FROM logout_items AS earlier WHERE earlier.run_id = logout_items.run_id AND earlier.position < logout_items.position
        AND earlier.attempts = 1 AND earlier.reported_by IS NOT NULL AND earlier.finished_at > logout_items.issued_at),
        logout_items.deadline_at) ELSE logout_items.deadline_at END
        """
}
