import Fluent
import Foundation
import HandoverCore

/// A one-time email sign-in link's token: only its SHA-256 is stored; single use, 15 minutes.
final class EmailLoginToken: Model, @unchecked Sendable {
    static let schema = "email_login_tokens"

    @ID(key: .id) var id: UUID?
    @Field(key: "token_hash") var tokenHash: String
    /// The address, lowercased.
    @Field(key: "email") var email: String
    @Field(key: "created_at") var createdAt: Date
    @Field(key: "expires_at") var expiresAt: Date
    @OptionalField(key: "used_at") var usedAt: Date?
    /// The fleet device whose app asked for the link: the session it starts ends with that
    /// device's hand-over, in the app or in a browser.
    @OptionalField(key: "device_id") var deviceID: UUID?

    init() {}
}
