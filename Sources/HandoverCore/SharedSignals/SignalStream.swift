import Foundation
import SQLKit

/// An event stream (SSF 1.0 §8.1.1), as stored: made by a receiver (an OAuth client of this
/// server) and read by the transmitter's outbox, its push and its poll.
package struct SignalStream: Sendable, Equatable {
    /// How its events travel (SSF §6.1).
    package enum Method: String, Sendable, CaseIterable {
        /// RFC 8935: this server POSTs each SET to the receiver's `endpoint_url`.
        case push = "urn:ietf:rfc:8935"
        /// RFC 8936: the receiver polls this server's endpoint for them.
        case poll = "urn:ietf:rfc:8936"
    }

    /// SSF §8.1.2: whether events flow, are held, or are dropped.
    package enum Status: String, Sendable, CaseIterable {
        case enabled, paused, disabled
    }

    package var id: String
    package var clientID: String
    package var method: Method
    /// Push: the receiver's URL. Poll: nil (the poll URL is this server's, by the stream's id).
    package var endpointURL: String?
    /// Push: the `Authorization` header value the receiver asked for, sealed at rest.
    package var sealedAuthorization: String?
    /// What the receiver asked for; nil when it did not say (every supported type).
    package var eventsRequested: [String]?
    package var eventsDelivered: [String]
    package var description: String?
    package var status: Status
    package var reason: String?
    package var lastVerificationAt: Date?
    package var createdAt: Date
    package var updatedAt: Date

    static let columns: SQLQueryString = """
        id, client_id, delivery_method, endpoint_url, authorization_header, events_requested, events_delivered, description, \
        status, reason, last_verification_at, created_at, updated_at
        """

    init(row: any SQLRow) throws {
        id = try row.decode(column: "id", as: String.self)
        clientID = try row.decode(column: "client_id", as: String.self)
        method = Method(rawValue: try row.decode(column: "delivery_method", as: String.self)) ?? .poll
        endpointURL = try row.decode(column: "endpoint_url", as: String?.self)
        sealedAuthorization = try row.decode(column: "authorization_header", as: String?.self)
        eventsRequested = try row.decode(column: "events_requested", as: String?.self).map(Self.list)
        eventsDelivered = Self.list(try row.decode(column: "events_delivered", as: String.self))
        description = try row.decode(column: "description", as: String?.self)
        status = Status(rawValue: try row.decode(column: "status", as: String.self)) ?? .disabled
        reason = try row.decode(column: "reason", as: String?.self)
        lastVerificationAt = try row.decode(column: "last_verification_at", as: Date?.self)
        createdAt = try row.decode(column: "created_at", as: Date.self)
        updatedAt = try row.decode(column: "updated_at", as: Date.self)
    }

    init(id: String, clientID: String, method: Method, endpointURL: String?, sealedAuthorization: String?, eventsRequested: [String]?,
         description: String?, now: Date) {
        self.id = id
        self.clientID = clientID
        self.method = method
        self.endpointURL = endpointURL
        self.sealedAuthorization = sealedAuthorization
        self.eventsRequested = eventsRequested
        eventsDelivered = Self.delivered(requested: eventsRequested)
        self.description = description
        status = .enabled
        reason = nil
        lastVerificationAt = nil
        createdAt = now
        updatedAt = now
    }

    /// SSF §8.1.1: `events_delivered` is the intersection of what is supported and what was
    /// requested (every supported type when nothing was).
    static func delivered(requested: [String]?) -> [String] {
        guard let requested else { return SecurityEventType.supported }
        return SecurityEventType.supported.filter(requested.contains)
    }

    static func list(_ text: String) -> [String] {
        (try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? []
    }

    static func text(_ list: [String]) -> String {
        String(decoding: (try? JSONEncoder().encode(list)) ?? Data("[]".utf8), as: UTF8.self)
    }

    /// Writes the stream whole (insert or replace).
    func save(on sql: any SQLDatabase, inserting: Bool) async throws {
        if inserting {
            try await sql.raw("""
                INSERT INTO ssf_streams (\(Self.columns)) VALUES (\(bind: id), \(bind: clientID), \(bind: method.rawValue), \(bind: endpointURL),
                \(bind: sealedAuthorization), \(bind: eventsRequested.map(Self.text)), \(bind: Self.text(eventsDelivered)), \(bind: description),
                \(bind: status.rawValue), \(bind: reason), \(bind: lastVerificationAt), \(bind: createdAt), \(bind: updatedAt))
                """).run()
        } else {
            try await sql.raw("""
                UPDATE ssf_streams SET delivery_method = \(bind: method.rawValue), endpoint_url = \(bind: endpointURL),
                authorization_header = \(bind: sealedAuthorization), events_requested = \(bind: eventsRequested.map(Self.text)),
                events_delivered = \(bind: Self.text(eventsDelivered)), description = \(bind: description), status = \(bind: status.rawValue),
                reason = \(bind: reason), last_verification_at = \(bind: lastVerificationAt), updated_at = \(bind: updatedAt)
                WHERE id = \(bind: id)
                """).run()
        }
    }

    /// The streams of `clientID` (all of them, or the one named).
    static func find(clientID: String, id: String?, on sql: any SQLDatabase) async throws -> [SignalStream] {
        let rows: [any SQLRow]
        if let id {
            rows = try await sql.raw("SELECT \(Self.columns) FROM ssf_streams WHERE id = \(bind: id) AND client_id = \(bind: clientID)").all()
        } else {
            rows = try await sql.raw("SELECT \(Self.columns) FROM ssf_streams WHERE client_id = \(bind: clientID) ORDER BY created_at").all()
        }
        return try rows.map(SignalStream.init(row:))
    }

    /// A stream by its id alone (the outbox's push and poll).
    static func find(id: String, on sql: any SQLDatabase) async throws -> SignalStream? {
        try await sql.raw("SELECT \(Self.columns) FROM ssf_streams WHERE id = \(bind: id)").first().map(SignalStream.init(row:))
    }
}
