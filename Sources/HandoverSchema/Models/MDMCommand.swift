import FluentKit
import Foundation
import HandoverProtocol

/// A command owed to the fleet's MDM for one device (lock, Lost Mode or erase), in a durable
/// outbox: written in the transaction that took the device out of service (or marked it
/// overdue), sent by the server's MDM pass with retries, and kept with its answer.
package final class MDMCommand: Model, @unchecked Sendable {
    package static let schema = "mdm_commands"

    @ID(key: .id) package var id: UUID?
    @Field(key: "device_id") package var deviceID: UUID
    /// `jamf`, `intune` or `webhook`.
    @Field(key: "connector") package var connector: String
    @Field(key: "action") package var action: MDMAction
    @Field(key: "status") package var status: MDMCommandState
    /// Why it was asked: the device's status then (`out_of_service`, `overdue`).
    @Field(key: "trigger") package var trigger: DeviceStatus
    @Field(key: "attempts") package var attempts: Int
    @Field(key: "next_attempt_at") package var nextAttemptAt: Date
    @OptionalField(key: "last_status_code") package var lastStatusCode: Int?
    @OptionalField(key: "last_error") package var lastError: String?
    /// What the MDM answered on success (its command id), or, in a dry run, what would be sent.
    @OptionalField(key: "answer") package var answer: String?
    /// Who confirmed an erase on the dashboard.
    @OptionalField(key: "confirmed_by") package var confirmedBy: String?
    /// Set while an attempt is on its way: found set when the command is due again, the server
    /// stopped mid-attempt, and the MDM is asked whether it already has the command before it
    /// is sent again.
    @OptionalField(key: "in_flight_since") package var inFlightSince: Date?
    @Field(key: "created_at") package var createdAt: Date
    @OptionalField(key: "sent_at") package var sentAt: Date?
    @Field(key: "version") package var version: Int

    package init() {}
}
