import FluentKit
import Foundation
import HandoverProtocol
import SQLKit

/// Writes webhook events as delivery rows, inside the caller's transaction, so an event exists
/// exactly when the change it reports was committed.
package enum WebhookOutbox {
    /// Every event type a webhook can subscribe to.
    package static let eventTypes = ["run.completed", "run.failed", "device.out_of_service", "device.back_in_service", "device.overdue",
                                     "device.mdm_command",
                                     "operation.suspicious", "audit.mismatch"]

    package static func enqueue(_ type: String, run: LogoutRunView?, deviceID: UUID?, reason: String? = nil,
                                operation: SuspiciousOperation? = nil, receipt: String? = nil, on db: Database, now: Date) async throws {
        // Most fleets have no webhook, or a few: one count first, and the rows only when there are some.
        if let sql = db as? any SQLDatabase,
           try await sql.raw("SELECT COUNT(*) AS hooks FROM webhooks").first()?.decode(column: "hooks", as: Int.self) == 0 { return }
        let hooks = try await Webhook.query(on: db).all().filter { $0.events.contains(type) }
        guard !hooks.isEmpty else { return }
        let payload = WebhookEventPayload(id: UUID(), type: type, createdAt: now, run: run, deviceID: deviceID, reason: reason, operation: operation,
                                          receipt: receipt)
        let body = String(decoding: try JSONEncoder.api.encode(payload), as: UTF8.self)
        for hook in hooks {
            let delivery = WebhookDelivery()
            delivery.webhookID = try hook.requireID()
            delivery.runID = run?.id
            delivery.event = type
            delivery.payload = body
            delivery.status = .pending
            delivery.attempts = 0
            delivery.nextAttemptAt = now
            delivery.createdAt = now
            delivery.version = 0
            try await delivery.create(on: db)
        }
    }
}
