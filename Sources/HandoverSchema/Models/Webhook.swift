import FluentKit
import Foundation
import HandoverProtocol

/// Where run events are POSTed, signed with the webhook's secret.
package final class Webhook: Model, @unchecked Sendable {
    package static let schema = "webhooks"

    @ID(key: .id) package var id: UUID?
    @Field(key: "url") package var url: String
    @Field(key: "secret") package var secret: String
    /// The secret before the last rotation, still signing beside ``secret`` until
    /// ``previousSecretExpiresAt`` (sealed, as ``secret`` is).
    @OptionalField(key: "previous_secret") package var previousSecret: String?
    @OptionalField(key: "previous_secret_expires_at") package var previousSecretExpiresAt: Date?
    @Field(key: "events") package var events: [String]
    @Field(key: "created_at") package var createdAt: Date

    package init() {}
}

/// One event on its way to one webhook: the outbox row, written in the same transaction as the
/// change it reports, then delivered with retries.
package final class WebhookDelivery: Model, @unchecked Sendable {
    package static let schema = "webhook_deliveries"

    @ID(key: .id) package var id: UUID?
    @Field(key: "webhook_id") package var webhookID: UUID
    /// The logout run the event reports, when it reports one (its timeline lists it).
    @OptionalField(key: "run_id") package var runID: UUID?
    @Field(key: "event") package var event: String
    @Field(key: "payload") package var payload: String
    @Field(key: "status") package var status: WebhookDeliveryStatus
    @Field(key: "attempts") package var attempts: Int
    @Field(key: "next_attempt_at") package var nextAttemptAt: Date
    @OptionalField(key: "last_status_code") package var lastStatusCode: Int?
    @OptionalField(key: "last_error") package var lastError: String?
    @Field(key: "created_at") package var createdAt: Date
    @OptionalField(key: "delivered_at") package var deliveredAt: Date?
    @Field(key: "version") package var version: Int

    package init() {}
}
