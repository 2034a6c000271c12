import Fluent
import Foundation
import HandoverCore
import HandoverProtocol
import NIOCore
import SessionTokens
import SQLKit
import Vapor

/// Delivers owed Back-Channel Logout tokens (OpenID Connect Back-Channel Logout 1.0, section 2.5):
/// a POST of `logout_token=<JWT>` as `application/x-www-form-urlencoded`, signed at send time with
/// the current session key.
///
/// - 2xx: delivered. 400: refused (the backend could not log the session out, section 2.8); not
///   retried, shown as refused. Anything else, or no answer: retried with exponential back-off,
///   then failed after ``maxAttempts``.
/// - Each delivery is leased with a conditional update first, so two instances never send the
///   same attempt; a crash mid-attempt leaves the row pending, and it is sent again after its
///   lease (a minute), so nothing is lost.
struct BackChannelLogoutDispatcher: Sendable {
    let database: Database
    let client: Client
    let sessions: SessionAuthority
    let clock: ServerClock
    let logger: Logger
    /// Checked against the target's addresses just before each attempt.
    var targets = WebhookTargetPolicy(allowsPrivate: false)
    var maxAttempts = 8
    var timeout: TimeAmount = .seconds(10)
    /// Deliveries in flight at once.
    var width = 16
    /// Called with a delivery's run once the delivery is settled (delivered, refused or failed):
    /// the run's backend-only items may finish.
    var runSettled: (@Sendable (UUID) async throws -> Void)?

    /// Sends every delivery that is due now, up to ``width`` at a time, so that a backend that
    /// hangs until the timeout holds up only its own tokens; returns how many were attempted.
    @discardableResult
    func deliverDue(limit: Int = 100) async throws -> Int {
        let now = clock.now()
        let due = try await BackChannelLogoutDelivery.query(on: database)
            .filter(\.$status == .pending).filter(\.$nextAttemptAt <= now)
            .sort(\.$nextAttemptAt).limit(limit).all()
        guard let sql = database as? any SQLDatabase else { return 0 }
        return try await countConcurrently(due, width: width) { try await lease($0, now: now, sql: sql) }
    }

    /// Leases `delivery` with a conditional update and attempts it; false when another pass or
    /// instance has it.
    private func lease(_ delivery: BackChannelLogoutDelivery, now: Date, sql: any SQLDatabase) async throws -> Bool {
        guard let id = delivery.id else { return false }
        let leased = try await sql.raw("""
            UPDATE backchannel_logout_deliveries SET next_attempt_at = \(bind: now.addingTimeInterval(60)), version = version + 1
            WHERE id = \(bind: id) AND version = \(bind: delivery.version) AND status = \(bind: BackChannelLogoutState.pending.rawValue) RETURNING id
            """).all()
        guard !leased.isEmpty else { return false }
        try await attempt(delivery, id: id, sql: sql)
        return true
    }

    private func attempt(_ delivery: BackChannelLogoutDelivery, id: UUID, sql: any SQLDatabase) async throws {
        let attempt = delivery.attempts + 1
        var statusCode: Int?
        var failure: String?
        do {
            let claims = LogoutTokenClaims(issuer: sessions.ring.issuer, audience: delivery.clientID, sessionID: delivery.sessionID,
                                           subject: delivery.subject, issuedAt: clock.now())
            let token = try await sessions.ring.sign(logoutToken: claims)
            if let url = URL(string: delivery.uri), let host = url.host {
                try await targets.checkResolved(host, port: url.port ?? (url.scheme?.lowercased() == "http" ? 80 : 443))
            }
            let response = try await client.post(URI(string: delivery.uri), beforeSend: { request in
                request.headers.contentType = .urlEncodedForm
                var body = ByteBuffer()
                body.writeString("logout_token=" + token)
                request.body = body
                request.timeout = timeout
            })
            statusCode = Int(response.status.code)
            if !(200..<300).contains(Int(response.status.code)) {
                failure = "HTTP \(response.status.code)" + (response.body.map { ": " + String(buffer: $0).prefix(200) } ?? "")
            }
        } catch {
            failure = String(describing: error)
        }
        let finished = clock.now()
        let status: BackChannelLogoutState = switch (failure, statusCode) {
        case (nil, _): .delivered
        case (_, 400?): .refused
        default: attempt >= maxAttempts ? .failed : .pending
        }
        try await sql.raw("""
            UPDATE backchannel_logout_deliveries SET status = \(bind: status.rawValue), attempts = \(bind: attempt),
            last_status_code = \(bind: statusCode), last_error = \(bind: failure.map { String($0.prefix(500)) }),
            delivered_at = \(bind: failure == nil ? finished : nil),
            next_attempt_at = \(bind: finished.addingTimeInterval(WebhookDispatcher.backoff(afterAttempt: attempt))), version = version + 1
            WHERE id = \(bind: id)
            """).run()
        if let failure {
            logger.warning("back-channel logout delivery failed",
                           metadata: ["client": "\(delivery.clientID)", "attempt": "\(attempt)", "status": "\(status.rawValue)", "error": "\(failure)"])
        }
        if status != .pending, let run = delivery.runID { try await runSettled?(run) }
    }
}
