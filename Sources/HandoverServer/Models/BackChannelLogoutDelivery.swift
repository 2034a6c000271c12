import Fluent
import Foundation
import HandoverProtocol

/// One logout token owed to one client for one ended session: the durable outbox row, written in
/// the transaction that ends the session, so nothing is lost on a crash. `(client_id, session_id)`
/// is unique: a session is announced to a client at most once, however many times it ends.
final class BackChannelLogoutDelivery: Model, @unchecked Sendable {
    static let schema = "backchannel_logout_deliveries"

    @ID(key: .id) var id: UUID?
    /// The `aud` of the logout token.
    @Field(key: "client_id") var clientID: String
    /// The `sid`: the ended session, as the client's tokens name it.
    @Field(key: "session_id") var sessionID: String
    /// The `sub`: the session's user.
    @OptionalField(key: "subject") var subject: String?
    @Field(key: "uri") var uri: String
    /// The fleet device whose hand-over ended the session, when one did.
    @OptionalField(key: "device_id") var deviceID: UUID?
    /// The logout run that ended it, when one did: its report shows this delivery.
    @OptionalField(key: "run_id") var runID: UUID?
    /// Why the session ended (`device_logout`, `logout`, `refresh_token_reused`, …).
    @Field(key: "reason") var reason: String
    @Field(key: "status") var status: BackChannelLogoutState
    @Field(key: "attempts") var attempts: Int
    @Field(key: "next_attempt_at") var nextAttemptAt: Date
    @OptionalField(key: "last_status_code") var lastStatusCode: Int?
    @OptionalField(key: "last_error") var lastError: String?
    @Field(key: "created_at") var createdAt: Date
    @OptionalField(key: "delivered_at") var deliveredAt: Date?
    /// Bumped by each lease, so two instances never send the same attempt.
    @Field(key: "version") var version: Int

    init() {}
}
