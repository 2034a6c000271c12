import Foundation
import SQLKit

/// One durable outbox, for every kind of delivery the server owes someone outside it: webhook
/// events, Back-Channel Logout tokens, MDM commands, security events (pushed and polled), alert
/// mail and the SIEM streams. Each kind keeps its rows in a table of its own, written in the
/// transaction of the change that owes them; this type is the only one that leases, counts
/// attempts, backs off and records, for every kind.
///
/// A row has its key (``key``, `id` unless the kind says otherwise), `status`, `attempts`,
/// `next_attempt_at`, `last_status_code`, `last_error` and `version`. A kind supplies its exchange
/// and its policy: the lease, the attempts allowed, the ``Backoff``. Sending one attempt:
/// 1. ``lease(_:version:sql:setting:)``: a conditional update on the row's version that counts
///    the attempt and moves `next_attempt_at` past the lease. Only the pass (of any instance)
///    whose update lands sends; an attempt that a crash cuts off still counts, and the row is
///    due again when its lease runs out.
/// 2. The kind sends it (HTTP, an MDM's API) and decides what the outcome makes of the row.
/// 3. ``record(_:attempt:status:statusCode:failure:nextAttemptAt:sql:setting:)``: the outcome,
///    with the next attempt after ``backoff(afterAttempt:)``.
///
/// A kind whose receiver fetches rather than receives (RFC 8936 poll) leases nothing: it counts
/// the rows it hands out (``countHandedOut(_:by:where:sql:)``) and settles the ones the receiver
/// answers for (``settle(_:by:where:status:failure:sql:setting:)``). A kind whose row is a cursor
/// rather than one message (the SIEM's) records attempt 0 when the batch went through, and never
/// gives up (`maxAttempts` of `Int.max`).
///
/// Which rows are due, and in what concurrency (the server's `DeliveryLanes` by destination, or a fixed
/// width), is the dispatcher's.
package struct DeliveryOutbox: Sendable {
    /// The kind's table.
    package let table: String
    /// The column that names a row.
    package let key: String
    /// The `status` of a row still owed.
    package let pendingStatus: String
    /// How long a leased row is left to its attempt before it is due again: longer than any
    /// attempt may take, so that only a crash makes a lease run out.
    package let lease: TimeInterval
    /// Attempts before a row is given up.
    package let maxAttempts: Int
    /// How long a failed attempt waits before the next.
    package let backoff: Backoff

    package init(table: String, key: String = "id", pendingStatus: String, lease: TimeInterval, maxAttempts: Int, backoff: Backoff = .standard) {
        self.table = table
        self.key = key
        self.pendingStatus = pendingStatus
        self.lease = lease
        self.maxAttempts = maxAttempts
        self.backoff = backoff
    }

    /// A kind's back-off: `first` after the first failed attempt, doubling after each next one,
    /// never more than `cap`.
    package struct Backoff: Sendable, Equatable {
        package var first: TimeInterval
        package var cap: TimeInterval

        package init(first: TimeInterval, cap: TimeInterval) {
            self.first = first
            self.cap = cap
        }

        /// 2, 4, 8 … seconds, at most an hour: every kind's but the SIEM's.
        package static let standard = Backoff(first: 2, cap: 3600)

        /// The wait after the n-th failed attempt (n from 1).
        package func delay(afterAttempt attempt: Int) -> TimeInterval {
            min(cap, first * pow(2, Double(min(max(1, attempt), 64) - 1)))
        }
    }

    /// This kind's back-off after the n-th failed attempt.
    package func backoff(afterAttempt attempt: Int) -> TimeInterval {
        backoff.delay(afterAttempt: attempt)
    }

    /// A column and the value an update gives it.
    package struct Assignment: Sendable {
        package var column: String
        package var value: any Encodable & Sendable

        package init(_ column: String, _ value: any Encodable & Sendable) {
            self.column = column
            self.value = value
        }
    }

    /// What a lease found.
    package enum Leased: Equatable, Sendable {
        /// Another pass or instance has the row, or it is no longer owed.
        case taken
        /// This pass sends attempt `n`.
        case attempt(Int)
        /// The attempt that was leased last was cut off (a stop, a crash) and was the last one
        /// allowed: record the row given up.
        case exhausted
    }

    /// Leases row `id` at `version` and counts its attempt (see the type's documentation).
    package func lease(_ id: some Encodable & Sendable, version: Int, at now: Date, sql: any SQLDatabase,
                       setting extra: [Assignment] = []) async throws -> Leased {
        guard let row = try await sql.raw("""
            UPDATE \(ident: table) SET next_attempt_at = \(bind: now.addingTimeInterval(lease)), attempts = attempts + 1,
            version = version + 1\(assignments(extra))
            WHERE \(ident: key) = \(bind: id) AND version = \(bind: version) AND status = \(bind: pendingStatus)
            RETURNING attempts
            """).first() else { return .taken }
        let attempt = try row.decode(column: "attempts", as: Int.self)
        return attempt > maxAttempts ? .exhausted : .attempt(attempt)
    }

    /// Records attempt `attempt` of row `id`: its status, the destination's status code and the
    /// failure (at most 500 characters), and when it is due again.
    package func record(_ id: some Encodable & Sendable, attempt: Int, status: String, statusCode: Int?, failure: String?, nextAttemptAt: Date,
                        sql: any SQLDatabase, setting extra: [Assignment] = []) async throws {
        try await sql.raw("""
            UPDATE \(ident: table) SET status = \(bind: status), attempts = \(bind: attempt),
            last_status_code = \(bind: statusCode), last_error = \(bind: failure.map { String($0.prefix(500)) }),
            next_attempt_at = \(bind: nextAttemptAt), version = version + 1\(assignments(extra))
            WHERE \(ident: key) = \(bind: id)
            """).run()
    }

    /// Counts an attempt on each owed row of `scope` whose `column` is one of `values`: the rows
    /// a poll hands out (RFC 8936 §2.3). Nothing is leased; a row not settled is handed out again.
    package func countHandedOut(_ values: [String], by column: String, where scope: Assignment, sql: any SQLDatabase) async throws {
        for chunk in Self.chunks(of: values) {
            try await sql.raw("""
                UPDATE \(ident: table) SET attempts = attempts + 1, version = version + 1
                WHERE \(ident: scope.column) = \(bind: scope.value) AND status = \(bind: pendingStatus) AND \(ident: column) IN (\(binds: chunk))
                """).run()
        }
    }

    /// Settles each owed row of `scope` whose `column` is one of `values`: the rows a poll's
    /// receiver acknowledged or refused (RFC 8936 §2.2), with `failure` (at most 500 characters).
    package func settle(_ values: [String], by column: String, where scope: Assignment, status: String, failure: String?,
                        sql: any SQLDatabase, setting extra: [Assignment] = []) async throws {
        for chunk in Self.chunks(of: values) {
            try await sql.raw("""
                UPDATE \(ident: table) SET status = \(bind: status), last_error = \(bind: failure.map { String($0.prefix(500)) }),
                version = version + 1\(assignments(extra))
                WHERE \(ident: scope.column) = \(bind: scope.value) AND status = \(bind: pendingStatus) AND \(ident: column) IN (\(binds: chunk))
                """).run()
        }
    }

    /// At most 500 values to a statement: under every database's limit on bound parameters.
    private static func chunks(of values: [String]) -> [[String]] {
        stride(from: 0, to: values.count, by: 500).map { Array(values[$0..<min($0 + 500, values.count)]) }
    }

    /// `, column = value` for each assignment.
    private func assignments(_ extra: [Assignment]) -> SQLQueryString {
        var text: SQLQueryString = ""
        for assignment in extra {
            text.appendInterpolation(unsafeRaw: ", ")
            text.appendInterpolation(ident: assignment.column)
            text.appendInterpolation(unsafeRaw: " = ")
            text.appendInterpolation(bind: assignment.value)
        }
        return text
    }
}
