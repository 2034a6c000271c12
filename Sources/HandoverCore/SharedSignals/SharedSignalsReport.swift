import Foundation
import SQLKit

/// What the dashboard shows of Shared Signals: each stream with what it has delivered, still
/// owes and had refused, and the latest SETs received from the identity provider.
package enum SharedSignalsReport {
    package struct Stream: Sendable, Equatable {
        package var id: String
        package var receiver: String
        package var method: SignalStream.Method
        package var status: SignalStream.Status
        package var delivered: Int
        package var owed: Int
        package var failed: Int
        package var lastError: String?
    }

    package struct Received: Sendable, Equatable {
        package var jti: String
        package var event: String
        package var outcome: String
        package var at: Date
    }

    /// Every stream, oldest first, with its outbox counted in one read.
    package static func streams(on sql: any SQLDatabase) async throws -> [Stream] {
        try await sql.raw("""
            SELECT s.id AS id, COALESCE(c.client_name, s.client_id) AS receiver, s.delivery_method AS method, s.status AS status,
              (SELECT COUNT(*) FROM ssf_events e WHERE e.stream_id = s.id AND e.status = 'delivered') AS delivered,
              (SELECT COUNT(*) FROM ssf_events e WHERE e.stream_id = s.id AND e.status = 'pending') AS owed,
              (SELECT COUNT(*) FROM ssf_events e WHERE e.stream_id = s.id AND e.status = 'failed') AS failed,
              (SELECT e.last_error FROM ssf_events e WHERE e.stream_id = s.id AND e.last_error IS NOT NULL
               ORDER BY e.next_attempt_at DESC LIMIT 1) AS last_error
            FROM ssf_streams s LEFT JOIN oauth_clients c ON c.client_id = s.client_id ORDER BY s.created_at
            """).all().map { row in
            Stream(id: try row.decode(column: "id", as: String.self), receiver: try row.decode(column: "receiver", as: String.self),
                   method: SignalStream.Method(rawValue: try row.decode(column: "method", as: String.self)) ?? .poll,
                   status: SignalStream.Status(rawValue: try row.decode(column: "status", as: String.self)) ?? .disabled,
                   delivered: try row.decode(column: "delivered", as: Int.self), owed: try row.decode(column: "owed", as: Int.self),
                   failed: try row.decode(column: "failed", as: Int.self), lastError: try row.decode(column: "last_error", as: String?.self))
        }
    }

    /// The latest SETs received, newest first.
    package static func received(limit: Int = 20, on sql: any SQLDatabase) async throws -> [Received] {
        try await sql.raw("""
            SELECT jti, event_types, outcome, received_at FROM ssf_received ORDER BY received_at DESC LIMIT \(unsafeRaw: String(limit))
            """).all().map { row in
            Received(jti: try row.decode(column: "jti", as: String.self), event: try row.decode(column: "event_types", as: String.self),
                     outcome: try row.decode(column: "outcome", as: String.self), at: try row.decode(column: "received_at", as: Date.self))
        }
    }
}
