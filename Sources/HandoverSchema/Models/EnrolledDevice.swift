import FluentKit
import Foundation

/// A phone enrolled for out-of-band operations: the public halves of its keys, and optionally
/// its APNs token. Created by an approved `registration` operation, ended by a `deregistration`.
package final class EnrolledDevice: Model, @unchecked Sendable {
    package static let schema = "enrolled_devices"

    /// The id the phone answers as (its signing key's fingerprint unless the app chose one).
    @ID(custom: "id", generatedBy: .user) package var id: String?
    @Field(key: "user_handle") package var user: String
    /// base64url of the x9.63 P-256 public key that signs answers.
    @Field(key: "signing_key") package var signingKey: String
    /// base64url of the raw X25519 public key payloads are sealed to.
    @Field(key: "agreement_key") package var agreementKey: String
    /// The APNs device token, hex.
    @OptionalField(key: "push_token") package var pushToken: String?
    /// Turned off when APNs answers 410 `Unregistered`.
    @Field(key: "push_token_active") package var pushTokenActive: Bool
    @Field(key: "enrolled_at") package var enrolledAt: Date
    @OptionalField(key: "deregistered_at") package var deregisteredAt: Date?
    /// The fleet device this phone is, when it was enrolled from a session signed in on one: the
    /// device's hand-over stops its pushes and ends the browser sessions it approved.
    @OptionalField(key: "fleet_device_id") package var fleetDeviceID: UUID?

    package init() {}
}
