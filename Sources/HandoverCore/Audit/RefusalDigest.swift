import Foundation
import HandoverSchema
import NIOConcurrencyHelpers

/// Refusals of requests nobody authenticated, as the audit log keeps them: facts, not input.
///
/// Anyone can make this server refuse a request (a sign-in callback with a made-up `state`, a
/// forged logout token), and an append-only log can never shed what a flood wrote into it. So per
/// client address and window (``window``, 10 minutes from the address's first refusal) only the
/// first refusal is an entry of its own, naming the address; the later ones are counted with their
/// reasons, and once the window has closed one summary entry says how many there were:
/// `39 more refusals from 203.0.113.7 from 2026-05-04T10:02:11Z to 2026-05-04T10:09:40Z
/// (9 answered 429): 30 × …; 9 × …`. At most ``addressLimit`` addresses are followed at once;
/// refusals from further ones share one window, `other addresses`. Every text is bounded
/// (``StrangerText``), and a summary names at most ``reasonLimit`` reasons, counting the rest as
/// `other reasons`: a window writes two entries of a few hundred bytes, however much was sent.
///
/// A summary is written with the first refusal after its window closed, by the server's pass
/// every minute, and, for each window still open, when the server stops. The counts live in
/// memory, per instance: a crash loses the counts of the windows still open (at most 10 minutes'
/// worth), never a first refusal, so every address that was refused is in the log.
package final class RefusalDigest: Sendable {
    /// What to do with one refusal (``note(address:reason:rateLimited:now:)``).
    package enum Decision: Equatable, Sendable {
        /// The first of its window: record it, naming `address` (the client's, or `other addresses`).
        case record(address: String)
        /// Counted for the window's summary.
        case counted
    }

    /// A reason and how many refusals gave it.
    package struct Reason: Equatable, Sendable {
        package var text: String
        package var count: Int
    }

    /// A closed window: the refusals after its first one.
    package struct Summary: Equatable, Sendable {
        package var address: String
        /// The window's first refusal (recorded on its own) and its last one.
        package var from: Date
        package var to: Date
        package var count: Int
        /// Of ``count``, those answered 429 (past the rate limit).
        package var rateLimited: Int
        package var reasons: [Reason]
        package var otherReasons: Int

        /// The summary entry's text.
        package var detail: String {
            let limited = rateLimited > 0 ? " (\(rateLimited) answered 429)" : ""
            let named = reasons.map { "\($0.count) × \($0.text)" } + (otherReasons > 0 ? ["\(otherReasons) × other reasons"] : [])
            return "\(count) more refusal\(count == 1 ? "" : "s") from \(address) from \(from.formatted(.iso8601)) to \(to.formatted(.iso8601))"
                + "\(limited): " + named.joined(separator: "; ")
        }
    }

    private struct Window {
        var start: Date
        var last: Date
        var count = 0
        var rateLimited = 0
        var reasons: [Reason] = []
        var otherReasons = 0
    }

    /// The name the refusals share once ``addressLimit`` addresses are followed.
    package static let otherAddresses = "other addresses"
    /// How long a window lasts from its first refusal.
    package let window: TimeInterval
    /// How many addresses are followed at once.
    package let addressLimit: Int
    /// How many reasons a summary names.
    package let reasonLimit = 3
    private let windows = NIOLockedValueBox([String: Window]())

    package init(window: TimeInterval = 600, addressLimit: Int = 100) {
        self.window = window
        self.addressLimit = addressLimit
    }

    /// Notes one refusal from `address` at `now`: whether to record it, and the summaries of the
    /// windows that had closed (taken out: the caller writes them).
    package func note(address: String, reason: String, rateLimited: Bool, now: Date) -> (decision: Decision, closed: [Summary]) {
        windows.withLockedValue { table in
            let closed = Self.take(&table) { now.timeIntervalSince($0.start) >= window }
            var key = StrangerText.bounded(address, limit: 64)
            if table[key] == nil, table.count >= addressLimit { key = Self.otherAddresses }
            guard var open = table[key] else {
                table[key] = Window(start: now, last: now)
                return (.record(address: key), closed)
            }
            open.count += 1
            open.last = max(open.last, now)
            if rateLimited { open.rateLimited += 1 }
            let text = StrangerText.bounded(reason)
            if let index = open.reasons.firstIndex(where: { $0.text == text }) {
                open.reasons[index].count += 1
            } else if open.reasons.count < reasonLimit {
                open.reasons.append(Reason(text: text, count: 1))
            } else {
                open.otherReasons += 1
            }
            table[key] = open
            return (.counted, closed)
        }
    }

    /// The summaries of the windows closed at `now`, taken out.
    package func closed(now: Date) -> [Summary] {
        windows.withLockedValue { table in Self.take(&table) { now.timeIntervalSince($0.start) >= window } }
    }

    /// The summaries of every window, closed or not, taken out (when the server stops).
    package func all() -> [Summary] {
        windows.withLockedValue { table in Self.take(&table) { _ in true } }
    }

    /// Removes the windows `done` says are over; the summaries of those that counted any.
    private static func take(_ table: inout [String: Window], _ done: (Window) -> Bool) -> [Summary] {
        let over = table.filter { done($0.value) }
        guard !over.isEmpty else { return [] }
        for key in over.keys { table[key] = nil }
        return over.filter { $0.value.count > 0 }.sorted { $0.value.start < $1.value.start }.map { address, window in
            Summary(address: address, from: window.start, to: window.last, count: window.count, rateLimited: window.rateLimited,
                    reasons: window.reasons, otherReasons: window.otherReasons)
        }
    }

    // MARK: Writing

    /// Records one refusal as ``note(address:reason:rateLimited:now:)`` decides: an entry of its
    /// own for the first of a window (`who`, the reason and the address), after the summaries of
    /// the windows that had closed.
    package func refused(_ reason: String, who: String, address: String, rateLimited: Bool, now: Date, on database: DatabaseHandle) async throws {
        let (decision, closed) = note(address: address, reason: reason, rateLimited: rateLimited, now: now)
        try await write(closed, on: database, now: now)
        if case .record(let address) = decision {
            try await AdminEvent(at: now, kind: .refused, who: StrangerText.bounded(who),
                                 detail: "\(StrangerText.bounded(reason, limit: 400)) (from \(address))").record(on: database)
        }
    }

    /// Writes the summaries of the windows closed at `now`; returns how many.
    @discardableResult
    package func writeClosed(on database: DatabaseHandle, now: Date) async throws -> Int {
        let summaries = closed(now: now)
        try await write(summaries, on: database, now: now)
        return summaries.count
    }

    /// Writes the summaries of every window, open ones included; returns how many.
    @discardableResult
    package func writeAll(on database: DatabaseHandle, now: Date) async throws -> Int {
        let summaries = all()
        try await write(summaries, on: database, now: now)
        return summaries.count
    }

    private func write(_ summaries: [Summary], on database: DatabaseHandle, now: Date) async throws {
        for summary in summaries {
            try await AdminEvent(at: now, kind: .refused, who: "unknown", detail: summary.detail).record(on: database)
        }
    }
}
