import Foundation
import HandoverServer
import SQLKit
import Testing

/// The statements of a shift change's path find their rows through an index (SQLite's plans):
/// a full scan of a table that grows with the fleet, its runs or its sessions would make every
/// hand-over slower as the fleet ages.
@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct QueryPlanTests {
    static let hotStatements = [
        "SELECT key_hash, id, name, scope, key_prefix, device_id, expires_at FROM api_keys WHERE key_hash IN ('h', 'i') AND revoked_at IS NULL",
        "SELECT device_id FROM logout_runs WHERE id = 'r'",
        "SELECT id FROM logout_items WHERE run_id = 'r' ORDER BY position",
        "SELECT COUNT(*) FROM logout_items WHERE run_id = 'r' AND status = 'pending'",
        "SELECT id FROM logout_items WHERE status = 'pending' AND deadline_at <= 1 ORDER BY deadline_at LIMIT 100",
        "SELECT id FROM apps WHERE id IN ('a', 'b')",
        "SELECT 1 FROM devices WHERE id = 'd'",
        // The device sign-out every run starts with.
        "SELECT id FROM device_secrets WHERE device_id = 'd' AND revoked_at IS NULL",
        "SELECT id FROM user_sessions WHERE device_id = 'd' AND revoked_at IS NULL",
        "UPDATE enrolled_devices SET push_token_active = 0 WHERE fleet_device_id = 'd' AND push_token_active = 1",
        "SELECT 1 FROM backchannel_logout_deliveries WHERE run_id IN ('r') LIMIT 1",
        // A batch of callbacks: the usual ones in one statement, then their runs counted.
        callbackBatch,
        // A batch of deadlines' reissues (DeadlineScheduler), in one statement.
        """
        UPDATE logout_items SET attempts = attempts + 1, issued_at = 1.0, deadline_at = due.column3, version = version + 1
        FROM (VALUES ('i', 1, 2.0), ('j', 3, 2.0)) AS due
        WHERE logout_items.id = due.column1 AND logout_items.version = due.column2 AND logout_items.status = 'pending'
        RETURNING id, run_id, attempts
        """,
        // The runs left with nothing pending: their items, then the runs, each in one statement.
        "SELECT id FROM logout_items WHERE run_id IN (\(Self.list(32))) ORDER BY run_id, position",
        """
        UPDATE logout_runs SET status = ending.column2, finished_at = ending.column3 FROM (VALUES ('r', 'completed', 1), ('s', 'failed', 1)) AS ending
        WHERE logout_runs.id = ending.column1 AND logout_runs.status = 'running'
        RETURNING logout_runs.id AS id, logout_runs.device_id AS device_id, logout_runs.created_at AS created_at
        """,
        // (A batch's size, not two: with more than a few runs listed, SQLite preferred the
        // status index and read every pending item of the fleet for each batch; issue 37.)
        "SELECT DISTINCT run_id FROM logout_items WHERE run_id IN (\(Self.list(32))) AND status = 'pending'",
        // Runs that completed with an MDM configured: their devices' owed commands cancelled.
        """
        UPDATE mdm_commands SET status = 'cancelled' WHERE device_id IN (\(Self.list(32)))
        AND status IN ('pending', 'awaiting_confirmation') RETURNING device_id
        """,
        // A batch of finished runs' receipts (issue 42): devices, custodies, item methods, the MDM
        // command just queued; each entry's site; the counter; a run's receipt.
        "SELECT id, name, site FROM devices WHERE id IN (\(Self.list(32)))",
        """
        SELECT d.id, d.name, d.site, c.run_id, c.user_id, c.checked_out_at, c.checked_out_by,
        EXISTS (SELECT 1 FROM backchannel_logout_deliveries WHERE run_id IN (\(Self.list(32)))) AS owed
        FROM devices d LEFT JOIN custodies c ON c.device_id = d.id AND c.run_id IN (\(Self.list(32))) WHERE d.id IN (\(Self.list(32)))
        """,
        "SELECT device_id, action, connector, status FROM mdm_commands WHERE device_id IN (\(Self.list(32))) AND created_at = 1",
        "SELECT site FROM devices WHERE id = 'd'",
        "UPDATE audit_head SET size = size + 3 WHERE id = 1 RETURNING size",
        // SQLite's append: one statement (the trigger moves the counter).
        """
        INSERT INTO audit_entries (seq, type, leaf, leaf_hash, run_id, device_id, site, created_at)
        SELECT (SELECT size FROM audit_head WHERE id = 1) + e.column1, e.column2, e.column3, e.column4, e.column5, e.column6,
        (SELECT site FROM devices WHERE id = e.column6), e.column7 FROM (VALUES (0, 't', x'00', x'00', 'r', 'd', 1), (1, 't', x'00', x'00', NULL, NULL, 1)) AS e
        """,
        "SELECT leaf FROM audit_entries WHERE run_id = 'r' AND type = 'run.receipt'",
        "SELECT seq, leaf, leaf_hash, site FROM audit_entries WHERE seq >= 0 AND seq < 500 ORDER BY seq",
        // A batch of launchers' check-outs (CustodyLedger): the people, their and the devices'
        // open custodies, the devices' sites, the custodies taken over.
        "SELECT id, full_name, email FROM users WHERE email IN ('a', 'b') ORDER BY created_at, id",
        "SELECT id, full_name, email FROM users WHERE id IN ('a', 'b') ORDER BY created_at, id",
        """
        SELECT id, device_id, user_id, person_name, person_email, site, checked_out_by, checked_out_at, badge_digest
        FROM custodies WHERE checked_in_at IS NULL AND user_id IN ('u', 'v') UNION ALL
        SELECT id, device_id, user_id, person_name, person_email, site, checked_out_by, checked_out_at, badge_digest
        FROM custodies WHERE checked_in_at IS NULL AND device_id IN ('d', 'e')
        """,
        "SELECT id, site FROM devices WHERE id IN ('d', 'e')",
        "UPDATE custodies SET checked_in_at = 1, ended_without_run = 'x' WHERE id IN ('c', 'd')",
        // A batch of run starts, and of devices moving: locked and read, then stepped.
        "UPDATE devices SET status = status WHERE id IN ('d', 'e') RETURNING id, status",
        """
        UPDATE devices SET status = step.column2, status_changed_at = 1, status_reason = step.column3, last_run_id = step.column4
        FROM (VALUES ('d', 'handing_over', NULL, 'r'), ('e', 'handing_over', 'x', 's')) AS step WHERE devices.id = step.column1
        """,
    ]

    /// A batch of callbacks, the usual ones (`LogoutItemTransitions.finishByNonce(_:)`).
    static let callbackBatch = """
        UPDATE logout_items SET status = answer.column4, finished_at = answer.column5, reported_by = answer.column6, version = version + 1
        FROM (VALUES ('i', 'r', 1, 'succeeded', 1.0, 'browser'), ('j', 's', 2, 'failed', 1.0, 'launcher')) AS answer
        WHERE logout_items.id = answer.column1 AND logout_items.run_id = answer.column2 AND logout_items.status = 'pending'
        AND logout_items.attempts >= answer.column3 RETURNING id, app_name
        """

    /// `count` quoted ids, as a batch lists them.
    static func list(_ count: Int) -> String {
        (0..<count).map { "'id\($0)'" }.joined(separator: ", ")
    }

    /// The statements that read a run's pending items, and an app's finished ones, each with the
    /// index it must search (a search of `logout_items_pending_due` would read every pending item
    /// of the fleet: it is ordered by deadline, not by run).
    static let itemSearches: [(statement: String, table: String, index: String)] = [
        ("SELECT COUNT(*) FROM logout_items WHERE run_id = 'r' AND status = 'pending'", "logout_items", "logout_items_run"),
        ("SELECT DISTINCT run_id FROM logout_items WHERE run_id IN (\(list(32))) AND status = 'pending'", "logout_items", "logout_items_run"),
        // The callback fast path's count of the run's other pending items (the item itself by id).
        ("""
         UPDATE logout_items SET status = 'succeeded' WHERE id = 'i' AND run_id = 'r' AND status = 'pending'
         RETURNING (SELECT COUNT(*) FROM logout_items AS other WHERE other.run_id = 'r' AND other.status = 'pending' AND other.id <> 'i')
         """, "other", "logout_items_run"),
        // AppScorecard's counts and its page.
        ("""
         SELECT status, COUNT(*) FROM logout_items WHERE app_id = 'a' AND finished_at >= 1.0 AND finished_at <= 2.0 GROUP BY status
         """, "logout_items", "logout_items_finished_by_app"),
        ("""
         SELECT i.status, i.finished_at, r.created_at FROM logout_items i JOIN logout_runs r ON r.id = i.run_id
         WHERE i.app_id = 'a' AND i.finished_at >= 1.0 AND i.finished_at <= 2.0
         """, "i", "logout_items_finished_by_app"),
    ]

    @Test func itemsAreFoundByRunAndByAppThroughTheirIndexes() async throws {
        let test = try await TestServer.start(.sqlite)
        let sql = try #require(test.server.databases.primary as? any SQLDatabase)
        for (statement, table, index) in Self.itemSearches {
            let plan = try await sql.raw("EXPLAIN QUERY PLAN \(unsafeRaw: statement)").all()
                .map { try $0.decode(column: "detail", as: String.self) }
            let items = plan.filter { $0.hasPrefix("SEARCH \(table) ") || $0.hasPrefix("SCAN \(table) ") }
            #expect(!items.isEmpty && items.allSatisfy { $0.contains("INDEX \(index) ") }, "\(statement): \(plan)")
        }
        try await test.stop()
    }

    /// A batch of callbacks writes the item's row and two indexes: `logout_items_pending_due`
    /// (the item's entry removed) and `logout_items_finished_by_app` (its entry added). Every
    /// index page it writes is a page more in SQLite's log for the checkpoint to copy, and a
    /// shift change's callbacks write pages all over the table; with three indexes, the
    /// checkpoint stalled a commit for about 20 ms every 300 ms (issue 37). Read from the
    /// statement's program: the b-trees it opens for writing, by name.
    @Test func aCallbackWritesTwoIndexesOfItsItem() async throws {
        let test = try await TestServer.start(.sqlite)
        let sql = try #require(test.server.databases.primary as? any SQLDatabase)
        let roots = try await sql.raw("SELECT name, rootpage FROM sqlite_master WHERE tbl_name = 'logout_items'").all()
            .reduce(into: [Int: String]()) { $0[try $1.decode(column: "rootpage", as: Int.self)] = try $1.decode(column: "name", as: String.self) }
        let program = try await sql.raw("EXPLAIN \(unsafeRaw: Self.callbackBatch)").all()
        let written = try program.filter { try $0.decode(column: "opcode", as: String.self) == "OpenWrite" }
            .compactMap { roots[try $0.decode(column: "p2", as: Int.self)] }
        #expect(Set(written) == ["logout_items", "logout_items_pending_due", "logout_items_finished_by_app"], "\(written)")
        try await test.stop()
    }

    @Test func everyHotStatementSearchesAnIndex() async throws {
        let test = try await TestServer.start(.sqlite)
        let sql = try #require(test.server.databases.primary as? any SQLDatabase)
        for statement in Self.hotStatements {
            let plan = try await sql.raw("EXPLAIN QUERY PLAN \(unsafeRaw: statement)").all()
                .map { try $0.decode(column: "detail", as: String.self) }
            let scans = plan.filter {
                $0.hasPrefix("SCAN ") && !$0.contains(" INDEX ") && !$0.hasSuffix("VALUES CLAUSE")  // a batch's VALUES list is read whole
            }
            #expect(scans.isEmpty, "\(statement): \(plan)")
            // An index searched by a state alone (`status=?`) reads a share of the whole table:
            // every pending item of the fleet, in a shift change.
            let stateOnly = plan.filter { $0.hasSuffix("(status=?)") }
            #expect(stateOnly.isEmpty, "\(statement) finds its rows by state alone: \(plan)")
            if ProcessInfo.processInfo.environment["PRINT_PLANS"] != nil { print(statement, "=>", plan) }
        }
        try await test.stop()
    }
}
