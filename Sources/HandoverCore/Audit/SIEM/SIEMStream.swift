import Foundation
import SQLKit
import TransparencyLog

/// Streams the audit log to each SIEM, in the log's order, at least once: every entry, and each
/// signed checkpoint right after the last entry it covers.
///
/// The log is what is owed: a destination's row in `siem_cursors` says how many entries it has
/// (`delivered`) and up to which size it has the checkpoints. That row is a row of the one
/// outbox (``DeliveryOutbox``, keyed by destination). A pass reads the batch after the cursor;
/// with something to send it leases the row at the version it read (so two instances never send
/// the same batch at once, and a pass whose cursor moved meanwhile sends nothing), sends up to
/// 500 messages, and moves the cursor on only when the destination took them. A failure backs
/// off (1 s, 2 s, … up to 5 minutes) and sends the same batch again; a cursor is never given up.
/// A destination added later, or down for a while, catches up from where its cursor stands.
package struct SIEMStream: Sendable {
    package let destinations: [any SIEMDestination]
    /// Where the cursors are written.
    package let sql: any SQLDatabase
    /// Where the log is read without holding the writer (SQLite's read connections).
    package let reads: any SQLDatabase
    package let clock: ServerClock
    /// The `status` of every cursor.
    package static let streaming = "streaming"
    /// The cursors' outbox: a lease of a minute, no last attempt, the SIEM's back-off.
    static let outbox = DeliveryOutbox(table: "siem_cursors", key: "destination", pendingStatus: streaming, lease: 60,
                                       maxAttempts: .max, backoff: .init(first: 1, cap: 300))

    package init(destinations: [any SIEMDestination], sql: any SQLDatabase, reads: (any SQLDatabase)? = nil, clock: ServerClock) {
        self.destinations = destinations
        self.sql = sql
        self.reads = reads ?? sql
        self.clock = clock
    }

    /// One destination's delivery log, as the dashboard shows it.
    package struct Status: Sendable, Equatable {
        package var destination: String
        package var delivered: Int
        package var attempts: Int
        package var lastError: String?
        package var nextAttemptAt: Date
        package var deliveredAt: Date?

        package init(destination: String, delivered: Int, attempts: Int, lastError: String? = nil, nextAttemptAt: Date, deliveredAt: Date? = nil) {
            self.destination = destination
            self.delivered = delivered
            self.attempts = attempts
            self.lastError = lastError
            self.nextAttemptAt = nextAttemptAt
            self.deliveredAt = deliveredAt
        }
    }

    /// A pass over every destination due; returns how many messages went out.
    @discardableResult
    package func pass(batch: Int = 500) async throws -> Int {
        var sent = 0
        for destination in destinations {
            sent += try await deliver(to: destination, batch: batch)
        }
        return sent
    }

    private func deliver(to destination: any SIEMDestination, batch: Int) async throws -> Int {
        let now = clock.now()
        try await sql.raw("""
            INSERT INTO siem_cursors (destination, delivered, checkpoints_delivered, attempts, next_attempt_at)
            VALUES (\(bind: destination.name), 0, 0, 0, \(bind: now)) ON CONFLICT DO NOTHING
            """).run()
        guard let cursor = try await sql.raw("""
            SELECT delivered, checkpoints_delivered, version FROM siem_cursors
            WHERE destination = \(bind: destination.name) AND next_attempt_at <= \(bind: now)
            """).first() else { return 0 }
        let delivered = try cursor.decode(column: "delivered", as: Int.self)
        let checkpointsDelivered = try cursor.decode(column: "checkpoints_delivered", as: Int.self)
        let log = AuditLog(sql: reads)
        var messages: [SIEMMessage] = []
        var next = delivered
        for entry in try await log.entries(from: delivered, to: delivered + batch) {
            guard entry.index == next else { break }  // a gap: an append not yet committed
            messages.append(.entry(index: entry.index, leaf: entry.leaf, leafHash: entry.leafHash, site: entry.site))
            next += 1
        }
        var lastCheckpoint = checkpointsDelivered
        for row in try await reads.raw("""
            SELECT size, root_hash, note FROM audit_checkpoints WHERE size > \(bind: checkpointsDelivered) AND size <= \(bind: next) ORDER BY size
            """).all() {
            let size = try row.decode(column: "size", as: Int.self)
            guard let root = MerkleHash(bytes: try row.decode(column: "root_hash", as: Data.self)) else { continue }
            // Right after the last entry it covers (or first, for one already covered).
            let position = messages.firstIndex { if case .entry(let index, _, _, _) = $0 { index >= size } else { false } } ?? messages.count
            messages.insert(.checkpoint(size: size, rootHash: root, note: try row.decode(column: "note", as: String.self)), at: position)
            lastCheckpoint = size
        }
        // Nothing owed: nothing leased, nothing written.
        guard !messages.isEmpty else { return 0 }
        let outbox = Self.outbox
        guard case .attempt(let attempt) = try await outbox.lease(destination.name, version: try cursor.decode(column: "version", as: Int.self),
                                                                  at: now, sql: sql) else { return 0 }
        do {
            try await destination.send(messages)
        } catch {
            try await outbox.record(destination.name, attempt: attempt, status: Self.streaming, statusCode: nil, failure: "\(error)",
                                    nextAttemptAt: clock.now().addingTimeInterval(outbox.backoff(afterAttempt: attempt)), sql: sql)
            return 0
        }
        let finished = clock.now()
        // Taken: the cursor moves on, and the count of attempts since the last success starts again.
        try await outbox.record(destination.name, attempt: 0, status: Self.streaming, statusCode: nil, failure: nil, nextAttemptAt: finished, sql: sql,
                                setting: [.init("delivered", next), .init("checkpoints_delivered", lastCheckpoint), .init("delivered_at", finished)])
        return messages.count
    }

    /// Every destination's delivery log.
    package static func statuses(on sql: any SQLDatabase) async throws -> [Status] {
        try await sql.raw("""
            SELECT destination, delivered, attempts, last_error, next_attempt_at, delivered_at FROM siem_cursors ORDER BY destination
            """).all().map { row in
            Status(destination: try row.decode(column: "destination", as: String.self), delivered: try row.decode(column: "delivered", as: Int.self),
                   attempts: try row.decode(column: "attempts", as: Int.self), lastError: try row.decode(column: "last_error", as: String?.self),
                   nextAttemptAt: try row.decode(column: "next_attempt_at", as: Date.self),
                   deliveredAt: try row.decode(column: "delivered_at", as: Date?.self))
        }
    }
}
