import Fluent
import Foundation
import HandoverCore
import HandoverProtocol
import NIOCore
import SessionTokens
import SQLKit
import Vapor

/// Delivers pending webhook events: POST with a signature, retry with exponential back-off, give
/// up after ``maxAttempts``. Each delivery is leased with a conditional update first, so two
/// instances never send the same attempt.
struct WebhookDispatcher: Sendable {
    let database: Database
    let client: Client
    let clock: ServerClock
    let logger: Logger
    /// Checked against the target's addresses just before each attempt.
    var targets = WebhookTargetPolicy(allowsPrivate: false)
    /// Opens the stored signing secrets.
    var sealer: SecretSealer?
    var maxAttempts = 8
    var timeout: TimeAmount = .seconds(10)
    /// Deliveries in flight at once.
    var width = 16

    /// Back-off after the n-th failed attempt: 2, 4, 8 … seconds, at most an hour.
    static func backoff(afterAttempt attempt: Int) -> TimeInterval {
        min(3600, pow(2, Double(max(1, attempt))))
    }

    /// A stored secret in clear (sealed ones opened).
    private func open(_ stored: String) throws -> String {
        try sealer.map { try ServerSecrets.open(stored, sealer: $0) } ?? stored
    }

    /// Sends every delivery that is due now, up to ``width`` at a time (a receiver that hangs
    /// holds up only its own deliveries); returns how many were attempted.
    @discardableResult
    func deliverDue(limit: Int = 50) async throws -> Int {
        let now = clock.now()
        let due = try await WebhookDelivery.query(on: database)
            .filter(\.$status == .pending).filter(\.$nextAttemptAt <= now)
            .sort(\.$nextAttemptAt).limit(limit).all()
        guard let sql = database as? any SQLDatabase else { return 0 }
        return try await countConcurrently(due, width: width) { try await lease($0, now: now, sql: sql) }
    }

    /// Leases `delivery` (its next attempt pushed a minute out; only the instance whose update
    /// lands sends) and attempts it; false when another pass or instance has it.
    private func lease(_ delivery: WebhookDelivery, now: Date, sql: any SQLDatabase) async throws -> Bool {
        guard let id = delivery.id else { return false }
        let leased = try await sql.raw("""
            UPDATE webhook_deliveries SET next_attempt_at = \(bind: now.addingTimeInterval(60)), version = version + 1
            WHERE id = \(bind: id) AND version = \(bind: delivery.version) AND status = \(bind: WebhookDeliveryStatus.pending.rawValue) RETURNING id
            """).all()
        guard !leased.isEmpty, let hook = try await Webhook.find(delivery.webhookID, on: database) else { return false }
        let attempt = delivery.attempts + 1
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
            let response = try await client.post(URI(string: hook.url), beforeSend: { request in
                request.headers.contentType = .json
                // Standard Webhooks: the same id on every retry, the time of this attempt.
                request.headers.replaceOrAdd(name: WebhookSignature.idHeader, value: deliveryID)
                request.headers.replaceOrAdd(name: WebhookSignature.timestampHeader, value: String(signed))
                request.headers.replaceOrAdd(name: WebhookSignature.signatureHeader,
                                             value: WebhookSignature.header(id: deliveryID, timestamp: signed, body: body, secrets: secrets))
                request.headers.replaceOrAdd(name: "Handover-Event", value: delivery.event)
                request.headers.replaceOrAdd(name: "Handover-Delivery", value: id.uuidString.lowercased())
                request.body = ByteBuffer(data: body)
                request.timeout = timeout
            })
            statusCode = Int(response.status.code)
            if !(200..<300).contains(Int(response.status.code)) { failure = "HTTP \(response.status.code)" }
        } catch {
            failure = String(describing: error)
        }
        let finished = clock.now()
        let status: WebhookDeliveryStatus = failure == nil ? .delivered : (attempt >= maxAttempts ? .failed : .pending)
        try await sql.raw("""
            UPDATE webhook_deliveries SET status = \(bind: status.rawValue), attempts = \(bind: attempt),
            last_status_code = \(bind: statusCode), last_error = \(bind: failure.map { String($0.prefix(500)) }),
            delivered_at = \(bind: failure == nil ? finished : nil),
            next_attempt_at = \(bind: finished.addingTimeInterval(Self.backoff(afterAttempt: attempt))), version = version + 1
            WHERE id = \(bind: id)
            """).run()
        if let failure {
            logger.warning("webhook delivery failed", metadata: ["delivery": "\(id)", "attempt": "\(attempt)", "error": "\(failure)"])
        }
        return true
    }
}
