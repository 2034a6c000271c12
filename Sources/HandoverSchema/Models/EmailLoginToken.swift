import FluentKit
import Foundation

/// A one-time email sign-in link's token: only its SHA-256 is stored; single use, 15 minutes.
package final class EmailLoginToken: Model, @unchecked Sendable {
    package static let schema = "email_login_tokens"

    @ID(key: .id) package var id: UUID?
    @Field(key: "token_hash") package var tokenHash: String
    /// The address, lowercased.
    @Field(key: "email") package var email: String
    @Field(key: "created_at") package var createdAt: Date
    @Field(key: "expires_at") package var expiresAt: Date
    @OptionalField(key: "used_at") package var usedAt: Date?
    /// The fleet device whose app asked for the link: the session it starts ends with that
    /// device's hand-over, in the app or in a browser.
    @OptionalField(key: "device_id") package var deviceID: UUID?
    /// The Apple team of the app that asked for the link, when it named itself (`clientID`): only
    /// an app of that team may redeem it.
    @OptionalField(key: "client_team") package var clientTeam: String?

    package init() {}
}
