import AsyncHTTPClient
import Foundation
import HandoverSchema
import Logging
import HandoverProtocol
import NIOCore
import NIOHTTP1
import OutboundHTTP
import SessionTokens

/// Delivers owed Back-Channel Logout tokens (OpenID Connect Back-Channel Logout 1.0, section 2.5):
/// a POST of `logout_token=<JWT>` as `application/x-www-form-urlencoded`, signed at send time with
/// the current session key.
///
/// - 2xx: delivered. 400: refused (the backend could not log the session out, section 2.8); not
///   retried, shown as refused. Anything else, no answer, or a reply longer than the exchange
///   reads: retried with exponential back-off, then failed after ``maxAttempts``.
/// - Each delivery is leased with a conditional update first, which also counts the attempt, so
///   two instances never send the same attempt, and an attempt that a crash cuts off still
///   counts: after its lease the delivery is sent again, or given up when that was the last.
/// - The address is the client's as the registry has it at send time: a backend whose
///   `backchannel_logout_uri` was changed gets its tokens at the new one, and one whose URI was
///   removed gets none (the delivery fails and says why).
/// - Deliveries go out in lanes by client (``DeliveryLanes``): a backend that hangs holds up only
///   its own tokens, and the background pass never waits for it.
package struct BackChannelLogoutDispatcher: Sendable {
    package let database: DatabaseHandle
    package let exchange: OutboundExchange
    package let sessions: SessionAuthority
    package let clock: ServerClock
    package let logger: Logger
    package let lanes: DeliveryLanes
    /// Checked against the target's addresses just before each attempt.
    package var targets = WebhookTargetPolicy(allowsPrivate: false)
    package var maxAttempts = 8
    /// How long a leased delivery is left to its attempt before it is due again: longer than any
    /// exchange (``OutboundExchange/timeout``), so only a crash makes a lease run out.
    package var lease: TimeInterval = 30
    /// The outbox's lease, count and record (shared with the other kinds of delivery).
    private var outbox: DeliveryOutbox {
        DeliveryOutbox(table: BackChannelLogoutDelivery.schema, pendingStatus: BackChannelLogoutState.pending.rawValue, lease: lease,
                       maxAttempts: maxAttempts)
    }

    /// Called with a delivery's run once the delivery is settled (delivered, refused or failed):
    /// the run's backend-only items may finish.
    package let runSettled: (@Sendable (UUID) async throws -> Void)?

    /// Sends every delivery that is due now and waits for them; returns how many were attempted.
    @discardableResult
    package func deliverDue(limit: Int = 100) async throws -> Int {
        try await startDue(limit: limit).finished()
    }

    /// Starts the deliveries that are due now in their clients' lanes, and returns without
    /// waiting for them (the background pass). A client whose lanes are all taken is left for a
    /// later pass.
    package func startDue(limit: Int = 100) async throws -> DeliveryLanes.Dispatch {
        let now = clock.now()
        let store = BackChannelLogoutStore(database)
        let full = lanes.full
        let due = try await store.due(at: now, exceptClients: full, limit: limit)
        guard let leases = store.leases(outbox) else { return .none }
        return lanes.dispatch(due, by: { $0.clientID }) { [self] delivery in
            do {
                return try await leaseAndAttempt(delivery, leases: leases)
            } catch {
                logger.warning("back-channel logout delivery not recorded", metadata: ["client": "\(delivery.clientID)", "error": "\(error)"])
                return false
            }
        }
    }

    /// Leases `delivery` with a conditional update that counts the attempt, and attempts it;
    /// false when another pass or instance has it.
    private func leaseAndAttempt(_ delivery: BackChannelLogoutDelivery, leases: BackChannelLogoutStore.Leases) async throws -> Bool {
        guard let id = delivery.id else { return false }
        let attempt: Int
        switch try await leases.lease(id, version: delivery.version, at: clock.now()) {
        case .taken:
            return false
        case .exhausted:
            // The last attempt was cut off on its way (the server stopped): it counted; give up.
            try await record(delivery, id: id, attempt: maxAttempts, status: .failed, statusCode: nil,
                             failure: "gave up after \(maxAttempts) attempts; the last was cut off by a server stop", leases: leases)
            return true
        case .attempt(let number):
            attempt = number
        }
        guard let uri = try await BackChannelLogoutOutbox.currentURI(clientID: delivery.clientID, on: database) else {
            try await record(delivery, id: id, attempt: attempt, status: .failed, statusCode: nil,
                             failure: "not sent: the client \(delivery.clientID) no longer has a backchannel_logout_uri", leases: leases)
            return true
        }
        var statusCode: Int?
        var failure: String?
        do {
            let claims = LogoutTokenClaims(issuer: sessions.ring.issuer, audience: delivery.clientID, sessionID: delivery.sessionID,
                                           subject: delivery.subject, issuedAt: clock.now())
            let token = try await sessions.ring.sign(logoutToken: claims)
            if let url = URL(string: uri), let host = url.host {
                try await targets.checkResolved(host, port: url.port ?? (url.scheme?.lowercased() == "http" ? 80 : 443))
            }
            var request = HTTPClientRequest(url: uri)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: "logout_token=" + token))
            let reply = try await exchange.send(request)
            statusCode = reply.status
            if !(200..<300).contains(reply.status) {
                failure = "HTTP \(reply.status)" + (reply.body.readableBytes > 0 ? ": " + reply.text() : "")
            }
        } catch let cut as OutboundFailure {
            if case .replyTooLong(let status, _) = cut { statusCode = status }
            failure = cut.description
        } catch {
            failure = String(describing: error)
        }
        let status: BackChannelLogoutState = switch (failure, statusCode) {
        case (nil, _): .delivered
        case (_, 400?): .refused
        default: attempt >= maxAttempts ? .failed : .pending
        }
        try await record(delivery, id: id, attempt: attempt, status: status, statusCode: statusCode, failure: failure, uri: uri, leases: leases)
        return true
    }

    private func record(_ delivery: BackChannelLogoutDelivery, id: UUID, attempt: Int, status: BackChannelLogoutState, statusCode: Int?,
                        failure: String?, uri: String? = nil, leases: BackChannelLogoutStore.Leases) async throws {
        let finished = clock.now()
        try await leases.record(id, attempt: attempt, status: status.rawValue, statusCode: statusCode, failure: failure,
                                nextAttemptAt: finished.addingTimeInterval(outbox.backoff(afterAttempt: attempt)),
                                setting: [.init("delivered_at", failure == nil ? finished : nil), .init("uri", uri ?? delivery.uri)])
        if let failure {
            logger.warning("back-channel logout delivery failed",
                           metadata: ["client": "\(delivery.clientID)", "attempt": "\(attempt)", "status": "\(status.rawValue)", "error": "\(failure)"])
        }
        if status != .pending, let run = delivery.runID { try await runSettled?(run) }
    }

    package init(database: DatabaseHandle, exchange: OutboundExchange, sessions: SessionAuthority, clock: ServerClock, logger: Logger, lanes: DeliveryLanes, targets: WebhookTargetPolicy = WebhookTargetPolicy(allowsPrivate: false),
                 maxAttempts: Int = 8, lease: TimeInterval = 30, runSettled: (@Sendable (UUID) async throws -> Void)? = nil) {
        self.targets = targets
        self.maxAttempts = maxAttempts
        self.database = database
        self.exchange = exchange
        self.sessions = sessions
        self.clock = clock
        self.logger = logger
        self.lanes = lanes
        self.lease = lease
        self.runSettled = runSettled
    }
}
