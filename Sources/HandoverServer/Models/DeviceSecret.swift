import Fluent
import Foundation
import HandoverCore
import SessionTokens

/// A Native SSO device secret: issued to the first app that signs in with scope `device_sso`,
/// kept where the team's other apps can read it, and exchanged by them for their own sessions.
/// Only its SHA-256 is stored. Revoking it ends every session that came from it.
final class DeviceSecret: Model, @unchecked Sendable {
    static let schema = "device_secrets"

    @ID(key: .id) var id: UUID?
    @Field(key: "secret_hash") var secretHash: String
    @Field(key: "user_id") var userID: UUID
    /// The fleet device (a registered device) it lives on, when the app said; a logout run of
    /// that device revokes it.
    @OptionalField(key: "device_id") var deviceID: UUID?
    /// The client id of the app that signed in first.
    @Field(key: "client_id") var clientID: String
    @Field(key: "created_at") var createdAt: Date
    @OptionalField(key: "revoked_at") var revokedAt: Date?

    init() {}

    /// `ds_hash`, computed from the stored digest, so an ID token can be reissued without the
    /// secret itself.
    var secretHashForIDToken: String {
        IDTokenClaims.deviceSecretHash(sha256Hex: secretHash) ?? ""
    }
}
