import Foundation
import SessionTokens

/// Handover as a Shared Signals transmitter (SSF 1.0): the streams receivers make and manage
/// (§8.1), the verification event (§8.1.4), and the SETs it signs for them. Every method acts for
/// one receiver, the OAuth client the bearer token names, and sees only its streams: another's
/// stream is "not found" (404), as §8.1.1.2 asks.
///
/// Refusals are ``DomainError``s: `.badRequest` (400) for a body that cannot be read or a field
/// that is wrong, `.notFound` (404), `.rateLimited` (429) for verifications closer together than
/// ``minimumVerificationInterval``. The streams' statements are ``SharedSignalsStore``'s.
package struct SharedSignalsTransmitter: Sendable {
    /// The `iss` of every SET and of the transmitter's configuration: the server's public origin.
    package let issuer: String
    package let database: DatabaseHandle
    package let sealer: SecretSealer
    package let targets: OutboundTargets
    package let clock: ServerClock
    /// How long an event waits for its receiver before it is dropped (poll unacknowledged, push
    /// undelivered): `HANDOVER_SSF_EVENT_RETENTION`, 7 days by default.
    package var retention: TimeInterval = 7 * 86400

    /// SSF §8.1.1 `min_verification_interval`: a receiver may ask for a verification event once
    /// every this many seconds.
    package static let minimumVerificationInterval: TimeInterval = 5
    /// Streams one receiver may hold (SSF §8.1.1.1 lets a transmitter refuse more with 409).
    package static let streamsPerReceiver = 10

    package init(issuer: String, database: DatabaseHandle, sealer: SecretSealer, targets: OutboundTargets, clock: ServerClock,
                 retention: TimeInterval = 7 * 86400) {
        var issuer = issuer
        while issuer.hasSuffix("/") { issuer.removeLast() }
        self.issuer = issuer
        self.database = database
        self.sealer = sealer
        self.targets = targets
        self.clock = clock
        self.retention = retention
    }

    /// The poll endpoint of a stream (SSF §6.1.2: the transmitter supplies it).
    package func pollURL(stream: String) -> String { issuer + "/ssf/poll/" + stream }

    /// The streams' store, or a storage error when the database does not speak SQL.
    private var store: SharedSignalsStore {
        get throws {
            let store = SharedSignalsStore(database)
            guard store.speaksSQL else { throw DomainError(.storage, code: "storage", reason: "The database does not speak SQL.") }
            return store
        }
    }

    // MARK: Streams (SSF §8.1.1)

    /// §8.1.1.1: a new stream for `client`; without `delivery`, a poll stream.
    package func create(_ request: StreamConfigurationRequest, client: String) async throws -> StreamConfiguration {
        let store = try store
        try checkTransmitterFields(request, client: client, existing: nil)
        let count = try await store.streamCount(client: client)
        guard count < Self.streamsPerReceiver else {
            throw DomainError(.conflict, code: "too_many_streams",
                              reason: "This receiver has \(count) streams, the most one may hold; update or delete one (SSF 1.0 §8.1.1.1).")
        }
        let delivery = try checkedDelivery(request.delivery ?? .init(method: SignalStream.Method.poll.rawValue, endpoint_url: nil))
        let stream = SignalStream(id: UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""), clientID: client,
                                  method: delivery.method, endpointURL: delivery.url, sealedAuthorization: delivery.authorization,
                                  eventsRequested: try checkedEvents(request.events_requested), description: try checkedDescription(request.description),
                                  now: clock.now())
        try await store.insert(stream)
        return StreamConfiguration(stream, transmitter: self)
    }

    /// §8.1.1.2: one stream, or every stream of the receiver when `id` is nil.
    package func read(_ id: String?, client: String) async throws -> [StreamConfiguration] {
        if let id { return [StreamConfiguration(try await stream(id, client: client), transmitter: self)] }
        return try await store.streams(client: client, id: nil).map { StreamConfiguration($0, transmitter: self) }
    }

    /// §8.1.1.3 (`replacing` false: the fields present change) and §8.1.1.4 (`replacing` true:
    /// the receiver's fields are set as given, absent ones cleared).
    package func update(_ request: StreamConfigurationRequest, client: String, replacing: Bool) async throws -> StreamConfiguration {
        guard let id = request.stream_id, !id.isEmpty else { throw DomainError(.badRequest, code: "invalid_request", reason: "stream_id is required.", field: "stream_id") }
        var stream = try await stream(id, client: client)
        try checkTransmitterFields(request, client: client, existing: stream)
        if replacing || request.delivery != nil {
            guard let given = request.delivery else {
                throw DomainError(.badRequest, code: "invalid_request", reason: "delivery is required to replace a stream (SSF 1.0 §8.1.1.4).", field: "delivery")
            }
            let delivery = try checkedDelivery(given)
            stream.method = delivery.method
            stream.endpointURL = delivery.url
            stream.sealedAuthorization = delivery.authorization
        }
        if replacing || request.events_requested != nil {
            stream.eventsRequested = try checkedEvents(request.events_requested)
            stream.eventsDelivered = SignalStream.delivered(requested: stream.eventsRequested)
        }
        if replacing || request.description != nil { stream.description = try checkedDescription(request.description) }
        stream.updatedAt = clock.now()
        try await store.update(stream)
        return StreamConfiguration(stream, transmitter: self)
    }

    /// §8.1.1.5: the stream goes, with its subjects and the events it still owed.
    package func delete(_ id: String, client: String) async throws {
        let stream = try await stream(id, client: client)
        try await SharedSignalsStore(database).delete(stream)
    }

    // MARK: Status (SSF §8.1.2)

    package func status(_ id: String, client: String) async throws -> StreamStatusBody {
        let stream = try await stream(id, client: client)
        return StreamStatusBody(stream_id: stream.id, status: stream.status.rawValue, reason: stream.reason)
    }

    /// §8.1.2.2. A stream disabled drops what it held; one paused keeps it for when it is enabled.
    package func setStatus(_ body: StreamStatusBody, client: String) async throws -> StreamStatusBody {
        var stream = try await stream(body.stream_id, client: client)
        guard let status = SignalStream.Status(rawValue: body.status) else {
            throw DomainError(.badRequest, code: "invalid_request", reason: "status '\(body.status.prefix(40))' is not one of enabled, paused, disabled.", field: "status")
        }
        stream.status = status
        stream.reason = try body.reason.map { reason in
            guard reason.count <= 500, !reason.containsControlCharacter else {
                throw DomainError(.badRequest, code: "invalid_request", reason: "reason: at most 500 characters, no control characters.", field: "reason")
            }
            return reason
        }
        stream.updatedAt = clock.now()
        try await SharedSignalsStore(database).updateStatus(stream)
        return StreamStatusBody(stream_id: stream.id, status: status.rawValue, reason: stream.reason)
    }

    // MARK: Subjects (SSF §8.1.3)

    /// §8.1.3.2 (`removed` false) and §8.1.3.3 (`removed` true). Streams carry every subject by
    /// default (`default_subjects` "ALL"): removing one stops its events on the stream, adding it
    /// back starts them again.
    package func setSubject(_ request: StreamSubjectRequest, removed: Bool, client: String) async throws {
        let stream = try await stream(request.stream_id, client: client)
        let subject = request.subject.canonicalJSON
        guard subject.utf8.count <= 2048, !subject.containsControlCharacter else {
            throw DomainError(.badRequest, code: "invalid_request", reason: "subject: at most 2048 bytes of JSON, no control characters.", field: "subject")
        }
        if case .other(let format) = request.subject {
            throw DomainError(.badRequest, code: "invalid_request",
                              reason: "subject: the format '\(format)' names nobody this server knows; use email, iss_sub, opaque, aliases or complex.", field: "subject")
        }
        let store = try store
        try await store.forgetSubject(subject, of: stream)
        if removed {
            try await store.removeSubject(subject, from: stream, at: clock.now())
        }
    }

    // MARK: Verification (SSF §8.1.4)

    /// §8.1.4.2: a verification event on the stream, with the receiver's `state`.
    package func verify(_ request: VerificationRequest, client: String) async throws {
        var stream = try await stream(request.stream_id, client: client)
        if let state = request.state, state.utf8.count > 1024 || state.containsControlCharacter {
            throw DomainError(.badRequest, code: "invalid_request", reason: "state: at most 1024 bytes, no control characters.", field: "state")
        }
        let now = clock.now()
        if let last = stream.lastVerificationAt, now.timeIntervalSince(last) < Self.minimumVerificationInterval {
            throw DomainError.rateLimited(retryAfter: max(1, Int((Self.minimumVerificationInterval - now.timeIntervalSince(last)).rounded(.up))))
        }
        stream.lastVerificationAt = now
        let event = SecurityEvent.verification(stream: stream.id, state: request.state, at: now)
        try await SharedSignalsStore(database).recordVerification(stream, event: event, now: now)
    }

    // MARK: Checks

    /// The receiver's stream `id`, or 404.
    package func stream(_ id: String, client: String) async throws -> SignalStream {
        guard id.count <= 64, !id.containsControlCharacter, let stream = try await store.streams(client: client, id: id).first else {
            throw DomainError(.notFound, code: "not_found", reason: "This receiver has no stream with the stream_id '\(id.prefix(64))'.", field: "stream_id")
        }
        return stream
    }

    private func checkTransmitterFields(_ request: StreamConfigurationRequest, client: String, existing: SignalStream?) throws {
        if let iss = request.iss, iss != issuer {
            throw DomainError(.badRequest, code: "invalid_request", reason: "iss is this transmitter's: \(issuer).", field: "iss")
        }
        if let aud = request.aud, aud.values != [client] {
            throw DomainError(.badRequest, code: "invalid_request", reason: "aud is set by the transmitter: the receiver's client_id, \(client).", field: "aud")
        }
        if let delivered = request.events_delivered, let existing, Set(delivered) != Set(existing.eventsDelivered) {
            throw DomainError(.badRequest, code: "invalid_request", reason: "events_delivered, when sent, must be the stream's current value (SSF 1.0 §8.1.1.3).",
                              field: "events_delivered")
        }
    }

    private func checkedDelivery(_ delivery: StreamConfiguration.Delivery) throws -> (method: SignalStream.Method, url: String?, authorization: String?) {
        guard let method = SignalStream.Method(rawValue: delivery.method) else {
            throw DomainError(.badRequest, code: "invalid_request",
                              reason: "delivery.method '\(delivery.method.prefix(80))' is not supported; use urn:ietf:rfc:8935 (push) or urn:ietf:rfc:8936 (poll).",
                              field: "delivery.method")
        }
        guard method == .push else { return (.poll, nil, nil) }
        guard let url = delivery.endpoint_url else {
            throw DomainError(.badRequest, code: "invalid_request", reason: "delivery.endpoint_url is required for push (SSF 1.0 §6.1.1).", field: "delivery.endpoint_url")
        }
        if let problem = Self.pushURLProblem(url, targets: targets) {
            throw DomainError(.badRequest, code: "invalid_request", reason: "delivery.endpoint_url: \(problem)", field: "delivery.endpoint_url")
        }
        let authorization = try delivery.authorization_header.map { header -> String in
            guard header.utf8.count <= 4096, !header.containsControlCharacter else {
                throw DomainError(.badRequest, code: "invalid_request", reason: "delivery.authorization_header: at most 4096 bytes, no control characters.",
                                  field: "delivery.authorization_header")
            }
            return try sealer.seal(header)
        }
        return (.push, url, authorization)
    }

    /// What is wrong with a push endpoint, or nil: an absolute https URL (http to loopback only,
    /// unless the server allows it), no fragment, a host the delivery policy lets it reach.
    static func pushURLProblem(_ text: String, targets: OutboundTargets) -> String? {
        guard !text.containsControlCharacter, text.utf8.count <= 2048 else { return "give an https URL of at most 2048 characters, with no control characters" }
        guard let parts = URLComponents(string: text), let scheme = parts.scheme?.lowercased(), let host = parts.host, !host.isEmpty else {
            return "'\(text.prefix(100))' is not an absolute URL; give one such as https://receiver.example.com/events"
        }
        guard targets.allows(scheme: scheme, host: host) else { return "give an https URL such as https://receiver.example.com/events (http only on loopback)" }
        guard parts.fragment == nil else { return "an endpoint URL must not have a fragment (#…)" }
        return targets.policy.checkLiteral(host)?.advice(for: "receiver")
    }

    private func checkedEvents(_ events: [String]?) throws -> [String]? {
        guard let events else { return nil }
        guard events.count <= 50, events.allSatisfy({ $0.utf8.count <= 256 && !$0.containsControlCharacter }) else {
            throw DomainError(.badRequest, code: "invalid_request", reason: "events_requested: at most 50 URIs of at most 256 characters.", field: "events_requested")
        }
        return events
    }

    private func checkedDescription(_ text: String?) throws -> String? {
        guard let text else { return nil }
        guard !text.containsControlCharacter else {
            throw DomainError(.badRequest, code: "invalid_request", reason: "description: no control characters.", field: "description")
        }
        return String(text.prefix(200))  // §8.1.1: the transmitter may truncate it
    }
}
