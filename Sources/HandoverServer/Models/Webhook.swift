import Fluent
import Foundation
import HandoverProtocol

/// Where run events are POSTed, signed with the webhook's secret.
final class Webhook: Model, @unchecked Sendable {
    static let schema = "webhooks"

    @ID(key: .id) var id: UUID?
    @Field(key: "url") var url: String
    @Field(key: "secret") var secret: String
    /// The secret before the last rotation, still signing beside ``secret`` until
    /// ``previousSecretExpiresAt`` (sealed, as ``secret`` is).
    @OptionalField(key: "previous_secret") var previousSecret: String?
    @OptionalField(key: "previous_secret_expires_at") var previousSecretExpiresAt: Date?
    @Field(key: "events") var events: [String]
    @Field(key: "created_at") var createdAt: Date

    init() {}
}

/// One event on its way to one webhook: the outbox row, written in the same transaction as the
/// change it reports, then delivered with retries.
final class WebhookDelivery: Model, @unchecked Sendable {
    static let schema = "webhook_deliveries"

    @ID(key: .id) var id: UUID?
    @Field(key: "webhook_id") var webhookID: UUID
    @Field(key: "event") var event: String
    @Field(key: "payload") var payload: String
    @Field(key: "status") var status: WebhookDeliveryStatus
    @Field(key: "attempts") var attempts: Int
    @Field(key: "next_attempt_at") var nextAttemptAt: Date
    @OptionalField(key: "last_status_code") var lastStatusCode: Int?
    @OptionalField(key: "last_error") var lastError: String?
    @Field(key: "created_at") var createdAt: Date
    @OptionalField(key: "delivered_at") var deliveredAt: Date?
    @Field(key: "version") var version: Int

    init() {}
}
