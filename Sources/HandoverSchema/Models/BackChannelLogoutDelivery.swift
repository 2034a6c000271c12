import FluentKit
import Foundation
import HandoverProtocol

/// One logout token owed to one client for one ended session: the durable outbox row, written in
/// the transaction that ends the session, so nothing is lost on a crash. `(client_id, session_id)`
/// is unique: a session is announced to a client at most once, however many times it ends.
package final class BackChannelLogoutDelivery: Model, @unchecked Sendable {
    package static let schema = "backchannel_logout_deliveries"

    @ID(key: .id) package var id: UUID?
    /// The `aud` of the logout token.
    @Field(key: "client_id") package var clientID: String
    /// The `sid`: the ended session, as the client's tokens name it.
    @Field(key: "session_id") package var sessionID: String
    /// The `sub`: the session's user.
    @OptionalField(key: "subject") package var subject: String?
    @Field(key: "uri") package var uri: String
    /// The fleet device whose hand-over ended the session, when one did.
    @OptionalField(key: "device_id") package var deviceID: UUID?
    /// The logout run that ended it, when one did: its report shows this delivery.
    @OptionalField(key: "run_id") package var runID: UUID?
    /// Why the session ended (`device_logout`, `logout`, `refresh_token_reused`, …).
    @Field(key: "reason") package var reason: String
    @Field(key: "status") package var status: BackChannelLogoutState
    @Field(key: "attempts") package var attempts: Int
    @Field(key: "next_attempt_at") package var nextAttemptAt: Date
    @OptionalField(key: "last_status_code") package var lastStatusCode: Int?
    @OptionalField(key: "last_error") package var lastError: String?
    @Field(key: "created_at") package var createdAt: Date
    @OptionalField(key: "delivered_at") package var deliveredAt: Date?
    /// Bumped by each lease, so two instances never send the same attempt.
    @Field(key: "version") package var version: Int

    package init() {}
}
