import FluentKit
import Foundation

/// A Native SSO device secret: issued to the first app that signs in with scope `device_sso`,
/// kept where the team's other apps can read it, and exchanged by them for their own sessions.
/// Only its SHA-256 is stored. Revoking it ends every session that came from it.
package final class DeviceSecret: Model, @unchecked Sendable {
    package static let schema = "device_secrets"

    @ID(key: .id) package var id: UUID?
    @Field(key: "secret_hash") package var secretHash: String
    @Field(key: "user_id") package var userID: UUID
    /// The fleet device (a registered device) it lives on, when the app said; a logout run of
    /// that device revokes it.
    @OptionalField(key: "device_id") package var deviceID: UUID?
    /// The client id of the app that signed in first.
    @Field(key: "client_id") package var clientID: String
    @Field(key: "created_at") package var createdAt: Date
    @OptionalField(key: "revoked_at") package var revokedAt: Date?

    package init() {}
}
