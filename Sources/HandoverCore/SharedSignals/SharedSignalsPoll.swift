import Foundation
import SessionTokens

/// A poll request (RFC 8936 §2.2): acknowledgements, errors, and how many SETs to return.
package struct PollRequest: Decodable, Sendable {
    package var ack: [String]?
    package var setErrs: [String: SetError]?
    package var maxEvents: Int?
    package var returnImmediately: Bool?

    /// An error a receiver reports about one SET (RFC 8936 §2.2, RFC 8935 §2.4's codes).
    package struct SetError: Codable, Sendable {
        package var err: String
        package var description: String?
    }

    package init(ack: [String]? = nil, maxEvents: Int? = nil, returnImmediately: Bool? = nil) {
        self.ack = ack
        self.maxEvents = maxEvents
        self.returnImmediately = returnImmediately
    }
}

/// A poll response (RFC 8936 §2.3): the SETs by `jti`, and whether more are waiting.
package struct PollResponse: Codable, Sendable, Equatable {
    package var sets: [String: String]
    package var moreAvailable: Bool
}

/// Poll delivery (RFC 8936) of a poll stream's events. A poll first records what it acknowledges
/// (delivered) and what it reports as refused (`setErrs`, kept with the error), then answers the
/// oldest events still owed, each signed as it is handed out. An event handed out and not
/// acknowledged is handed out again by the next poll (§2.4), across restarts: the outbox is
/// the database. A paused stream answers nothing until it is enabled again (SSF 1.0 §8.1.2).
///
/// Long polling (§2.1, `returnImmediately` false, the default): with nothing owed, the request
/// waits up to ``longPollTimeout`` for an event, looking every ``longPollInterval``. The outbox's
/// rows are read and settled through ``SharedSignalsStore``.
package struct SharedSignalsPoll: Sendable {
    package let transmitter: SharedSignalsTransmitter
    package let ring: SessionKeyRing
    package var longPollTimeout: Duration = .seconds(20)
    package var longPollInterval: Duration = .milliseconds(200)
    /// The most SETs one answer carries.
    package static let maximumEvents = 1000
    /// The events' outbox as a poll uses it: it leases nothing and never gives up (a row stays
    /// owed until it is acknowledged, refused, or older than the transmitter's retention).
    static let outbox = DeliveryOutbox(table: "ssf_events", key: "jti", pendingStatus: SharedSignalsOutbox.State.pending.rawValue,
                                       lease: 0, maxAttempts: .max)

    package init(transmitter: SharedSignalsTransmitter, ring: SessionKeyRing, longPollTimeout: Duration = .seconds(20)) {
        self.transmitter = transmitter
        self.ring = ring
        self.longPollTimeout = longPollTimeout
    }

    package func poll(stream id: String, _ request: PollRequest, client: String) async throws -> PollResponse {
        let stream = try await transmitter.stream(id, client: client)
        guard stream.method == .poll else {
            throw DomainError(.badRequest, code: "invalid_request", reason: "Stream \(stream.id) delivers by push (urn:ietf:rfc:8935); it has no poll endpoint.")
        }
        let store = SharedSignalsStore(transmitter.database)
        guard store.speaksSQL else { return PollResponse(sets: [:], moreAvailable: false) }
        let maxEvents = request.maxEvents ?? 100
        guard (0...Self.maximumEvents).contains(maxEvents) else {
            throw DomainError(.badRequest, code: "invalid_request", reason: "maxEvents must be from 0 to \(Self.maximumEvents).", field: "maxEvents")
        }
        let acks = request.ack ?? []
        let errors = request.setErrs ?? [:]
        guard acks.count + errors.count <= 10_000, (acks + errors.keys).allSatisfy({ $0.utf8.count <= 256 && !$0.containsControlCharacter }) else {
            throw DomainError(.badRequest, code: "invalid_request", reason: "ack and setErrs: at most 10,000 jti values of at most 256 characters.", field: "ack")
        }
        let now = transmitter.clock.now()
        try await store.acknowledge(acks, stream: stream.id, at: now, in: Self.outbox)
        for (jti, error) in errors {
            try await store.refuse(jti, stream: stream.id, failure: "\(error.err): " + (error.description ?? ""), in: Self.outbox)
        }
        guard maxEvents > 0, stream.status == .enabled else { return PollResponse(sets: [:], moreAvailable: false) }
        let clock = transmitter.clock, started = clock.now()
        while true {
            let payloads = try await store.owedPayloads(stream: stream.id, maxEvents: maxEvents)
            if !payloads.isEmpty || request.returnImmediately == true || clock.now().timeIntervalSince(started) >= longPollTimeout.seconds {
                var sets: [String: String] = [:]
                for payload in payloads.prefix(maxEvents) {
                    let event = try JSONDecoder().decode(SecurityEvent.self, from: Data(payload.utf8))
                    sets[event.jti] = try ring.sign(document: SecurityEventToken(event, issuer: transmitter.issuer, audience: stream.clientID),
                                                    type: SecurityEventToken.type)
                }
                try await store.countHandedOut(Array(sets.keys), stream: stream.id, in: Self.outbox)
                return PollResponse(sets: sets, moreAvailable: payloads.count > maxEvents)
            }
            try await clock.sleep(for: longPollInterval)
        }
    }
}
