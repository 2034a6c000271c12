import Foundation
import SQLKit

/// The security events owed to receivers: one `ssf_events` row per stream and event, written in
/// the transaction of the change the event reports, so that an event is owed exactly when its
/// change committed. Push (``SharedSignalsPush``) and poll (``SharedSignalsPoll``) both read this
/// one outbox (through ``SharedSignalsStore``); a row stays owed until it is delivered (push) or
/// acknowledged (poll), or until it is older than the transmitter's retention. This file holds the
/// outbox's writes, which the areas whose changes the events report call in their transactions.
///
/// With no stream enabled or paused, an enqueue costs one indexed read and builds nothing.
package enum SharedSignalsOutbox {
    /// The rows' states.
    package enum State: String, Sendable {
        /// Owed: push has not delivered it, or poll has not had it acknowledged.
        case pending
        /// Push: the receiver answered 202. Poll: the receiver acknowledged it.
        case delivered
        /// The receiver refused it (push: 400 with an RFC 8935 error; poll: a `setErrs` entry),
        /// or push gave up after its attempts.
        case failed
    }

    /// Owes `events` to every stream that carries them: enabled or paused (a paused stream holds
    /// its events, SSF 1.0 §8.1.2), whose `events_delivered` has the type, whose receiver may hear
    /// of it (``SignalsAudience``: an app's backend, of its own app's sessions; SSF 1.0 §9.2), and
    /// from which the receiver did not remove the event's subject. `events` is called only when
    /// some stream exists, with nothing else read before (the streams' receivers come in the same
    /// statement).
    package static func enqueue(on sql: any SQLDatabase, now: Date, _ events: () async throws -> [SecurityEvent]) async throws {
        let streams = try await sql.raw("""
            SELECT s.id, s.events_delivered, s.client_id, c.client_id AS registered, c.software_id, c.signals_subjects FROM ssf_streams s
            LEFT JOIN oauth_clients c ON c.client_id = s.client_id WHERE s.status IN ('enabled', 'paused')
            """).all().map { row in
            let client = try row.decode(column: "client_id", as: String.self)
            // A stream whose client is no longer registered hears of nothing beyond its own app's.
            let audience = try row.decode(column: "registered", as: String?.self) == nil ? SignalsAudience.app(client)
                : SignalsAudience.of(clientID: client, softwareID: try row.decode(column: "software_id", as: String?.self),
                                     grant: try row.decode(column: "signals_subjects", as: String?.self))
            return (id: try row.decode(column: "id", as: String.self),
                    types: Set(SignalStream.list(try row.decode(column: "events_delivered", as: String.self))), audience: audience)
        }
        guard !streams.isEmpty else { return }
        let built = try await events()
        guard !built.isEmpty else { return }
        let removedRows = try await sql.raw("""
            SELECT stream_id, subject FROM ssf_stream_subjects WHERE removed = \(bind: true) AND stream_id IN (\(binds: streams.map(\.id)))
            """).all()
        var removed: [String: Set<String>] = [:]
        for row in removedRows {
            removed[try row.decode(column: "stream_id", as: String.self), default: []].insert(try row.decode(column: "subject", as: String.self))
        }
        var rows: [(String, SecurityEvent)] = []
        for stream in streams {
            for event in built where stream.types.contains(event.type) && stream.audience.mayHear(event) {
                if let gone = removed[stream.id], event.sub_id.simpleIdentifiers.contains(where: { gone.contains($0.canonicalJSON) }) || gone.contains(event.sub_id.canonicalJSON) {
                    continue
                }
                var copy = event
                // One jti per SET: each stream's copy is its own token (RFC 8417 §2.2).
                copy.jti = UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
                rows.append((stream.id, copy))
            }
        }
        try await insert(rows, on: sql, now: now)
    }

    /// Writes owed rows as they are (the verification event, which goes to its stream alone).
    package static func insert(_ rows: [(stream: String, event: SecurityEvent)], on sql: any SQLDatabase, now: Date) async throws {
        guard !rows.isEmpty else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for chunk in stride(from: 0, to: rows.count, by: 200).map({ Array(rows[$0..<min($0 + 200, rows.count)]) }) {
            let values = try chunk.map { row -> SQLQueryString in
                let payload = String(decoding: try encoder.encode(row.event), as: UTF8.self)
                return """
                    (\(bind: UUID()), \(bind: row.stream), \(bind: row.event.jti), \(bind: row.event.type), \(bind: payload), \
                    \(bind: State.pending.rawValue), 0, \(bind: now), 0, \(bind: now))
                    """
            }
            try await sql.raw("""
                INSERT INTO ssf_events (id, stream_id, jti, event_type, payload, status, attempts, next_attempt_at, version, created_at)
                VALUES \(SQLList(values))
                """).run()
        }
    }

    /// Drops what is older than `retention` and still owed, and what was settled more than a day
    /// ago (the background pass); returns how many rows went.
    @discardableResult
    package static func purge(on sql: any SQLDatabase, now: Date, retention: TimeInterval) async throws -> Int {
        let rows = try await sql.raw("""
            DELETE FROM ssf_events WHERE (status = 'pending' AND created_at < \(bind: now.addingTimeInterval(-retention)))
            OR (status <> 'pending' AND created_at < \(bind: now.addingTimeInterval(-max(retention, 86400)))) RETURNING id
            """).all()
        return rows.count
    }
}
