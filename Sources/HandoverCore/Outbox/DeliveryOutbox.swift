import Foundation
import SQLKit

/// One durable outbox, for every kind of delivery the server owes someone outside it: webhook
/// events, Back-Channel Logout tokens, MDM commands, and whatever comes next (security events,
/// the SIEM). Each kind keeps its rows in a table of its own, written in the transaction of the
/// change that owes them; this type is how every kind leases, counts, backs off and records.
///
/// A row has `id`, `status`, `attempts`, `next_attempt_at`, `last_status_code`, `last_error` and
/// `version`. Sending one attempt:
/// 1. ``lease(_:version:sql:setting:)``: a conditional update on the row's version that counts
///    the attempt and moves `next_attempt_at` past the lease. Only the pass (of any instance)
///    whose update lands sends; an attempt that a crash cuts off still counts, and the row is
///    due again when its lease runs out.
/// 2. The kind sends it (HTTP, an MDM's API) and decides what the outcome makes of the row.
/// 3. ``record(_:attempt:status:statusCode:failure:nextAttemptAt:sql:setting:)``: the outcome,
///    with the next attempt after ``backoff(afterAttempt:)``.
///
/// Which rows are due, and in what concurrency (the server's `DeliveryLanes` by destination, or a fixed
/// width), is the dispatcher's.
package struct DeliveryOutbox: Sendable {
    /// The kind's table.
    package let table: String
    /// The `status` of a row still owed.
    package let pendingStatus: String
    /// How long a leased row is left to its attempt before it is due again: longer than any
    /// attempt may take, so that only a crash makes a lease run out.
    package let lease: TimeInterval
    /// Attempts before a row is given up.
    package let maxAttempts: Int

    package init(table: String, pendingStatus: String, lease: TimeInterval, maxAttempts: Int) {
        self.table = table
        self.pendingStatus = pendingStatus
        self.lease = lease
        self.maxAttempts = maxAttempts
    }

    /// Back-off after the n-th failed attempt: 2, 4, 8 … seconds, at most an hour.
    package static func backoff(afterAttempt attempt: Int) -> TimeInterval {
        min(3600, pow(2, Double(max(1, attempt))))
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
    package func lease(_ id: UUID, version: Int, at now: Date, sql: any SQLDatabase, setting extra: [Assignment] = []) async throws -> Leased {
        guard let row = try await sql.raw("""
            UPDATE \(ident: table) SET next_attempt_at = \(bind: now.addingTimeInterval(lease)), attempts = attempts + 1,
            version = version + 1\(assignments(extra))
            WHERE id = \(bind: id) AND version = \(bind: version) AND status = \(bind: pendingStatus)
            RETURNING attempts
            """).first() else { return .taken }
        let attempt = try row.decode(column: "attempts", as: Int.self)
        return attempt > maxAttempts ? .exhausted : .attempt(attempt)
    }

    /// Records attempt `attempt` of row `id`: its status, the destination's status code and the
    /// failure (at most 500 characters), and when it is due again.
    package func record(_ id: UUID, attempt: Int, status: String, statusCode: Int?, failure: String?, nextAttemptAt: Date,
                        sql: any SQLDatabase, setting extra: [Assignment] = []) async throws {
        try await sql.raw("""
            UPDATE \(ident: table) SET status = \(bind: status), attempts = \(bind: attempt),
            last_status_code = \(bind: statusCode), last_error = \(bind: failure.map { String($0.prefix(500)) }),
            next_attempt_at = \(bind: nextAttemptAt), version = version + 1\(assignments(extra))
            WHERE id = \(bind: id)
            """).run()
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
