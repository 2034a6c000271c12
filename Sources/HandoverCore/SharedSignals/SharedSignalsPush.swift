import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import OutboundHTTP
import SessionTokens

/// Push delivery (RFC 8935) of the outbox's events on push streams: each SET is signed when it
/// is sent (ES256, the JWKS's key, `typ` `secevent+jwt`) and POSTed to the stream's
/// `endpoint_url` as `application/secevent+jwt` with the stream's `Authorization` value.
///
/// - 202 (any 2xx): delivered (§2.2).
/// - 400 with an RFC 8935 §2.4 error (`invalid_request`, `invalid_key`, `invalid_issuer`,
///   `invalid_audience`, `authentication_failed`, `access_denied`): refused; the SET is not sent
///   again, since the same bytes would be refused again, and the error is kept on the row (§2.3).
/// - Anything else, no answer, or too long an answer: retried with back-off (§2.5 leaves a
///   transmitter to retry), then given up after ``maxAttempts``.
///
/// Rows are leased with a conditional update that counts the attempt (``DeliveryOutbox``), so
/// two instances never send one attempt and a SIGKILL during a delivery only delays it: its lease
/// runs out and it is sent again. Only enabled streams send; a paused stream's events wait. The
/// outbox's rows are read, leased and recorded through ``SharedSignalsStore``.
package struct SharedSignalsPush: Sendable {
    package let transmitter: SharedSignalsTransmitter
    package let ring: SessionKeyRing
    package let exchange: OutboundExchange
    package let lanes: DeliveryLanes
    package let logger: Logger
    package var maxAttempts = 8
    package var lease: TimeInterval = 30

    private var outbox: DeliveryOutbox {
        DeliveryOutbox(table: "ssf_events", pendingStatus: SharedSignalsOutbox.State.pending.rawValue, lease: lease, maxAttempts: maxAttempts)
    }

    package init(transmitter: SharedSignalsTransmitter, ring: SessionKeyRing, exchange: OutboundExchange, lanes: DeliveryLanes, logger: Logger,
                 maxAttempts: Int = 8) {
        self.transmitter = transmitter
        self.ring = ring
        self.exchange = exchange
        self.lanes = lanes
        self.logger = logger
        self.maxAttempts = maxAttempts
    }

    private typealias Due = SharedSignalsStore.DueEvent

    /// Sends what is due and waits for it; returns how many were attempted.
    @discardableResult
    package func deliverDue(limit: Int = 100) async throws -> Int {
        try await startDue(limit: limit).finished()
    }

    /// Starts what is due in the streams' lanes and returns (the background pass).
    package func startDue(limit: Int = 100) async throws -> DeliveryLanes.Dispatch {
        let store = SharedSignalsStore(transmitter.database)
        guard store.speaksSQL else { return .none }
        let now = transmitter.clock.now()
        let due = try await store.duePushes(at: now, limit: limit).filter { !lanes.full.contains($0.stream) }
        // One lane per stream: a receiver gets its events in the order they were made.
        return lanes.dispatch(due, by: \.stream) { [self] row in
            do {
                return try await attempt(row, store: store)
            } catch {
                logger.warning("security event delivery not recorded", metadata: ["stream": "\(row.stream)", "error": "\(error)"])
                return false
            }
        }
    }

    private func attempt(_ row: Due, store: SharedSignalsStore) async throws -> Bool {
        let attempt: Int
        switch try await store.lease(row.id, version: row.version, at: transmitter.clock.now(), in: outbox) {
        case .taken: return false
        case .exhausted:
            try await record(row, attempt: maxAttempts, state: .failed, status: nil, failure: "gave up after \(maxAttempts) attempts; the last was cut off by a server stop", store: store)
            return true
        case .attempt(let number): attempt = number
        }
        guard let stream = try await store.stream(id: row.stream), stream.method == .push, let url = stream.endpointURL else {
            try await record(row, attempt: attempt, state: .failed, status: nil, failure: "the stream no longer pushes", store: store)
            return true
        }
        var status: Int?
        var failure: String?
        var refused = false
        do {
            let event = try JSONDecoder().decode(SecurityEvent.self, from: Data(row.payload.utf8))
            let token = try ring.sign(document: SecurityEventToken(event, issuer: transmitter.issuer, audience: stream.clientID),
                                      type: SecurityEventToken.type)
            if let host = URLComponents(string: url)?.host {
                try await transmitter.targets.policy.checkResolved(host, port: URLComponents(string: url)?.port ?? (url.lowercased().hasPrefix("http:") ? 80 : 443))
            }
            var request = HTTPClientRequest(url: url)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/secevent+jwt")
            request.headers.add(name: "Accept", value: "application/json")
            if let sealed = stream.sealedAuthorization { request.headers.add(name: "Authorization", value: try transmitter.sealer.openString(sealed)) }
            request.body = .bytes(ByteBuffer(string: token))
            let reply = try await exchange.send(request)
            status = reply.status
            if !(200..<300).contains(reply.status) {
                failure = "HTTP \(reply.status)" + (reply.body.readableBytes > 0 ? ": " + reply.text() : "")
                // RFC 8935 §2.3: a 400 names why the SET was refused; sending it again would not help.
                refused = reply.status == 400 && Self.errorCode(reply.body) != nil
            }
        } catch let cut as OutboundFailure {
            if case .replyTooLong(let code, _) = cut { status = code }
            failure = cut.description
        } catch {
            failure = String(describing: error)
        }
        let state: SharedSignalsOutbox.State = failure == nil ? .delivered : (refused || attempt >= maxAttempts ? .failed : .pending)
        try await record(row, attempt: attempt, state: state, status: status, failure: failure, store: store)
        return true
    }

    /// The `err` of an RFC 8935 §2.3 error body, when the reply is one.
    static func errorCode(_ body: ByteBuffer) -> String? {
        struct ErrorBody: Decodable { var err: String }
        return (try? JSONDecoder().decode(ErrorBody.self, from: Data(body.readableBytesView)))?.err
    }

    private func record(_ row: Due, attempt: Int, state: SharedSignalsOutbox.State, status: Int?, failure: String?, store: SharedSignalsStore) async throws {
        let now = transmitter.clock.now()
        try await store.record(row.id, attempt: attempt, state: state, statusCode: status, failure: failure,
                               nextAttemptAt: now.addingTimeInterval(outbox.backoff(afterAttempt: attempt)),
                               deliveredAt: state == .delivered ? now : nil, in: outbox)
        if let failure {
            logger.warning("security event push failed", metadata: ["stream": "\(row.stream)", "attempt": "\(attempt)", "state": "\(state.rawValue)", "error": "\(failure)"])
        }
    }
}
