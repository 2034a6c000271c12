import FluentKit
import Foundation
import HandoverProtocol
import HandoverSchema
import SQLKit

/// Writes webhook events as delivery rows, inside the caller's transaction, so an event exists
/// exactly when the change it reports was committed.
package enum WebhookOutbox {
    /// Every event type a webhook can subscribe to.
    package static let eventTypes = ["run.completed", "run.failed", "device.out_of_service", "device.back_in_service", "device.overdue",
                                     "device.mdm_command",
                                     "operation.suspicious", "audit.mismatch", AuditCheckpointEvent.type, "device.alert"]

    /// One event to write, for ``enqueue(_:on:)``.
    package struct Event: Sendable {
        package var type: String
        package var run: LogoutRunView?
        package var deviceID: UUID?
        package var reason: String?
        package var operation: SuspiciousOperation?
        package var receipt: String?
        package var checkpoint: AuditCheckpointEvent?
        package var alert: DeviceAlertEvent?
        package var at: Date

        package init(_ type: String, run: LogoutRunView?, deviceID: UUID?, reason: String? = nil, operation: SuspiciousOperation? = nil,
                     receipt: String? = nil, checkpoint: AuditCheckpointEvent? = nil, alert: DeviceAlertEvent? = nil, at: Date) {
            self.type = type
            self.run = run
            self.deviceID = deviceID
            self.reason = reason
            self.operation = operation
            self.receipt = receipt
            self.checkpoint = checkpoint
            self.alert = alert
            self.at = at
        }
    }

    /// Writes one event of `type` at `now` for every webhook subscribed to it.
    package static func enqueue(_ type: String, run: LogoutRunView?, deviceID: UUID?, reason: String? = nil,
                                operation: SuspiciousOperation? = nil, receipt: String? = nil, on db: Database, now: Date) async throws {
        try await enqueue([Event(type, run: run, deviceID: deviceID, reason: reason, operation: operation, receipt: receipt, at: now)], on: db)
    }

    /// Writes `events`, in order, for every webhook subscribed to each: the webhooks are read once.
    package static func enqueue(_ events: [Event], on db: Database) async throws {
        guard !events.isEmpty else { return }
        // Most fleets have no webhook, or a few: one count first, and the rows only when there are some.
        if let sql = db as? any SQLDatabase,
           try await sql.raw("SELECT COUNT(*) AS hooks FROM webhooks").first()?.decode(column: "hooks", as: Int.self) == 0 { return }
        let webhooks = try await Webhook.query(on: db).all()
        for event in events {
            let hooks = webhooks.filter { $0.events.contains(event.type) }
            guard !hooks.isEmpty else { continue }
            let payload = WebhookEventPayload(id: UUID(), type: event.type, createdAt: event.at, run: event.run, deviceID: event.deviceID,
                                              reason: event.reason, operation: event.operation, receipt: event.receipt,
                                              checkpoint: event.checkpoint, alert: event.alert)
            let body = String(decoding: try JSONEncoder.api.encode(payload), as: UTF8.self)
            for hook in hooks {
                let delivery = WebhookDelivery()
                delivery.webhookID = try hook.requireID()
                delivery.runID = event.run?.id
                delivery.event = event.type
                delivery.payload = body
                delivery.status = .pending
                delivery.attempts = 0
                delivery.nextAttemptAt = event.at
                delivery.createdAt = event.at
                delivery.version = 0
                try await delivery.create(on: db)
            }
        }
    }
}
