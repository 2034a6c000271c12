import FluentKit
import Foundation
import HandoverProtocol
import HandoverSchema
import SQLKit

/// Writes webhook events as delivery rows, inside the caller's transaction, so an event exists
/// exactly when the change it reports was committed; and reads, leases and records them for
/// ``WebhookDispatcher``. The webhook outbox's statements are all here.
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
    ///
    /// - Parameter webhooksRegistered: whether any webhook is registered, when the caller asked
    ///   already in this transaction (a run's conclusion, with its receipts' facts); counted here
    ///   when nil.
    package static func enqueue(_ events: [Event], on db: Database, webhooksRegistered: Bool? = nil) async throws {
        guard !events.isEmpty, webhooksRegistered != false else { return }
        // Most fleets have no webhook, or a few: one count first, and the rows only when there are some.
        if webhooksRegistered == nil, let sql = db as? any SQLDatabase,
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

    // MARK: Delivery (``WebhookDispatcher``)

    /// Reads the deliveries due at `now`, soonest first, at most `limit`, but those of the
    /// webhooks in `full` (their lanes are full).
    package static func due(at now: Date, limit: Int, excludingWebhooks full: [UUID], on database: DatabaseHandle) async throws -> [WebhookDelivery] {
        var query = WebhookDelivery.query(on: database).filter(\.$status == .pending).filter(\.$nextAttemptAt <= now)
        if !full.isEmpty { query = query.filter(\.$webhookID !~ full) }
        return try await query.sort(\.$nextAttemptAt).limit(limit).all()
    }

    /// Whether deliveries can be leased: the lease is a conditional update in SQL.
    package static func canLease(on database: DatabaseHandle) -> Bool {
        database is any SQLDatabase
    }

    /// Leases delivery `id` at `version` for one attempt, counting it (``DeliveryOutbox/lease(_:version:at:sql:setting:)``).
    package static func lease(_ id: UUID, version: Int, at now: Date, in outbox: DeliveryOutbox, on database: DatabaseHandle) async throws -> DeliveryOutbox.Leased {
        try await outbox.lease(id, version: version, at: now, sql: sql(database))
    }

    /// Writes an attempt's result on delivery `id`: its status, status code and failure, when it
    /// is due again, and when it was delivered (nil unless it was).
    package static func record(_ id: UUID, attempt: Int, status: WebhookDeliveryStatus, statusCode: Int?, failure: String?, nextAttemptAt: Date,
                               deliveredAt: Date?, in outbox: DeliveryOutbox, on database: DatabaseHandle) async throws {
        try await outbox.record(id, attempt: attempt, status: status.rawValue, statusCode: statusCode, failure: failure,
                                nextAttemptAt: nextAttemptAt, sql: sql(database), setting: [.init("delivered_at", deliveredAt)])
    }

    private static func sql(_ database: DatabaseHandle) throws -> any SQLDatabase {
        return try ServerDatabases.sql(database, code: "storage")
    }
}
