import Foundation

/// An event stream (SSF 1.0 §8.1.1), as stored: made by a receiver (an OAuth client of this
/// server) and read by the transmitter's outbox, its push and its poll. Its row is read and
/// written by ``SharedSignalsStore``.
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
}
