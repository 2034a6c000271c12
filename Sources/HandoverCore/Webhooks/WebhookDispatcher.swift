import AsyncHTTPClient
import Foundation
import HandoverSchema
import Logging
import HandoverProtocol
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import OutboundHTTP
import SessionTokens

/// Delivers pending webhook events: POST with a signature, retry with exponential back-off, give
/// up after ``maxAttempts``.
///
/// - Each delivery is leased with a conditional update first, which also counts the attempt:
///   two instances never send the same attempt, and one that a crash cuts off still counts.
/// - The webhook's URL and secrets are read at send time; a delivery whose webhook was deleted
///   fails and says why.
/// - Deliveries go out in lanes by webhook (``DeliveryLanes``): a receiver that hangs holds up
///   only its own events, and the background pass never waits for it.
/// - At most ``OutboundExchange/outboxReplyLimit`` bytes of a reply are read; a longer one fails
///   the attempt.
///
/// The deliveries are read, leased and recorded through ``WebhookOutbox``.
package struct WebhookDispatcher: Sendable {
    package let database: DatabaseHandle
    package let exchange: OutboundExchange
    package let clock: ServerClock
    package let logger: Logger
    package let lanes: DeliveryLanes
    /// Checked against the target's addresses just before each attempt.
    package var targets = WebhookTargetPolicy(allowsPrivate: false)
    /// Opens the stored signing secrets.
    package let sealer: SecretSealer?
    package var maxAttempts = 8
    /// How long a leased delivery is left to its attempt before it is due again (see
    /// ``BackChannelLogoutDispatcher/lease``).
    package var lease: TimeInterval = 30

    /// The outbox's lease, count and record (shared with the other kinds of delivery).
    private var outbox: DeliveryOutbox {
        DeliveryOutbox(table: WebhookDelivery.schema, pendingStatus: WebhookDeliveryStatus.pending.rawValue, lease: lease, maxAttempts: maxAttempts)
    }

    /// A stored secret in clear (sealed ones opened).
    private func open(_ stored: String) throws -> String {
        try sealer.map { try ServerSecrets.open(stored, sealer: $0) } ?? stored
    }

    /// Sends every delivery that is due now and waits for them; returns how many were attempted.
    @discardableResult
    package func deliverDue(limit: Int = 100) async throws -> Int {
        try await startDue(limit: limit).finished()
    }

    /// Starts the deliveries that are due now in their webhooks' lanes, and returns without
    /// waiting for them (the background pass).
    package func startDue(limit: Int = 100) async throws -> DeliveryLanes.Dispatch {
        let now = clock.now()
        let full = lanes.full.compactMap(UUID.init(uuidString:))
        let due = try await WebhookOutbox.due(at: now, limit: limit, excludingWebhooks: full, on: database)
        guard WebhookOutbox.canLease(on: database) else { return .none }
        return lanes.dispatch(due, by: { $0.webhookID.uuidString }) { [self] delivery in
            do {
                return try await leaseAndAttempt(delivery)
            } catch {
                logger.warning("webhook delivery not recorded", metadata: ["delivery": "\(delivery.id?.uuidString ?? "")", "error": "\(error)"])
                return false
            }
        }
    }

    /// Leases `delivery` (counting the attempt; only the instance whose update lands sends) and
    /// attempts it; false when another pass or instance has it.
    private func leaseAndAttempt(_ delivery: WebhookDelivery) async throws -> Bool {
        guard let id = delivery.id else { return false }
        let now = clock.now()
        let attempt: Int
        switch try await WebhookOutbox.lease(id, version: delivery.version, at: now, in: outbox, on: database) {
        case .taken:
            return false
        case .exhausted:
            try await record(id, attempt: maxAttempts, status: .failed, statusCode: nil,
                             failure: "gave up after \(maxAttempts) attempts; the last was cut off by a server stop")
            return true
        case .attempt(let number):
            attempt = number
        }
        guard let hook = try await Webhook.stored(delivery.webhookID, on: database) else {
            try await record(id, attempt: attempt, status: .failed, statusCode: nil, failure: "not sent: the webhook was deleted")
            return true
        }
        var statusCode: Int?
        var failure: String?
        do {
            let body = Data(delivery.payload.utf8)
            var secrets = [try open(hook.secret)]
            if let previous = hook.previousSecret, let until = hook.previousSecretExpiresAt, until > now { secrets.append(try open(previous)) }
            let signed = Int(clock.now().timeIntervalSince1970)
            let deliveryID = "msg_" + id.uuidString.lowercased()
            if let url = URL(string: hook.url), let host = url.host {
                try await targets.checkResolved(host, port: url.port ?? (url.scheme?.lowercased() == "http" ? 80 : 443))
            }
            var request = HTTPClientRequest(url: hook.url)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
            // Standard Webhooks: the same id on every retry, the time of this attempt.
            request.headers.add(name: WebhookSignature.idHeader, value: deliveryID)
            request.headers.add(name: WebhookSignature.timestampHeader, value: String(signed))
            request.headers.add(name: WebhookSignature.signatureHeader,
                                value: WebhookSignature.header(id: deliveryID, timestamp: signed, body: body, secrets: secrets))
            request.headers.add(name: "Handover-Event", value: delivery.event)
            request.headers.add(name: "Handover-Delivery", value: id.uuidString.lowercased())
            request.body = .bytes(ByteBuffer(data: body))
            let reply = try await exchange.send(request)
            statusCode = reply.status
            if !(200..<300).contains(reply.status) { failure = "HTTP \(reply.status)" }
        } catch let cut as OutboundFailure {
            if case .replyTooLong(let status, _) = cut { statusCode = status }
            failure = cut.description
        } catch {
            failure = String(describing: error)
        }
        let status: WebhookDeliveryStatus = failure == nil ? .delivered : (attempt >= maxAttempts ? .failed : .pending)
        try await record(id, attempt: attempt, status: status, statusCode: statusCode, failure: failure)
        return true
    }

    private func record(_ id: UUID, attempt: Int, status: WebhookDeliveryStatus, statusCode: Int?, failure: String?) async throws {
        let finished = clock.now()
        try await WebhookOutbox.record(id, attempt: attempt, status: status, statusCode: statusCode, failure: failure,
                                       nextAttemptAt: finished.addingTimeInterval(outbox.backoff(afterAttempt: attempt)),
                                       deliveredAt: failure == nil ? finished : nil, in: outbox, on: database)
        if let failure {
            logger.warning("webhook delivery failed", metadata: ["delivery": "\(id)", "attempt": "\(attempt)", "error": "\(failure)"])
        }
    }

    package init(database: DatabaseHandle, exchange: OutboundExchange, clock: ServerClock, logger: Logger, lanes: DeliveryLanes,
                 targets: WebhookTargetPolicy = WebhookTargetPolicy(allowsPrivate: false), sealer: SecretSealer? = nil, maxAttempts: Int = 8,
                 lease: TimeInterval = 30) {
        self.targets = targets
        self.maxAttempts = maxAttempts
        self.database = database
        self.exchange = exchange
        self.clock = clock
        self.logger = logger
        self.lanes = lanes
        self.sealer = sealer
        self.lease = lease
    }
}
