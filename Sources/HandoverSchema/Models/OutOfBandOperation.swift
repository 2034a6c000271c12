import FluentKit
import Foundation

/// An out-of-band operation: a request the phone did not start (sign in, enroll, confirm a
/// transaction, deregister), sent by push, QR code or link and answered with a signed decision.
package final class OutOfBandOperation: Model, @unchecked Sendable {
    package static let schema = "oob_operations"

    @ID(key: .id) package var id: UUID?
    /// `registration`, `authentication`, `transaction-confirmation` or `deregistration`.
    @Field(key: "type") package var type: String
    /// Whom it is for: the handle the caller's system knows the user by.
    @Field(key: "user_handle") package var user: String
    /// The transaction text the phone shows and signs the SHA-256 of.
    @OptionalField(key: "message") package var message: String?
    /// `push`, `qr`, `link` or `x-callback-link`.
    @Field(key: "dispatcher") package var dispatcher: String
    /// An ``OutOfBand/OperationStatus`` raw value.
    @Field(key: "status") package var status: String
    /// The 32-byte challenge, base64url: the answer must sign it.
    @Field(key: "challenge") package var challenge: String
    /// The numbers the phone offers, comma-separated (authentication only).
    @OptionalField(key: "number_choices") package var numberChoices: String?
    /// The number the web page shows; never sent to the phone.
    @OptionalField(key: "correct_number") package var correctNumber: Int?
    /// Wrong codes typed so far (authentication); the operation fails at ``CodeTries/maximum``.
    @OptionalField(key: "code_attempts") package var codeAttempts: Int?
    /// When the person reported it as not theirs ("this was not me").
    @OptionalField(key: "reported_at") package var reportedAt: Date?
    /// The enrolled device it was sealed to, and the only one that may answer; nil for a registration.
    @OptionalField(key: "device_id") package var deviceID: String?
    /// The x-callback targets, as JSON `{"success","error","cancel"}`.
    @OptionalField(key: "callbacks") package var callbacks: String?
    @Field(key: "created_at") package var createdAt: Date
    @Field(key: "updated_at") package var updatedAt: Date
    @Field(key: "expires_at") package var expiresAt: Date
    /// The device whose signed answer ended the operation.
    @OptionalField(key: "answered_by") package var answeredBy: String?
    /// Why it failed: an ``OutOfBand/AnswerRejection`` code.
    @OptionalField(key: "failure_code") package var failureCode: String?
    @OptionalField(key: "failure_reason") package var failureReason: String?
    /// What APNs did with the push (`delivered`, `unregistered`, `rejected: …`), for push dispatch.
    @OptionalField(key: "push_outcome") package var pushOutcome: String?
    /// The web sign-in page's cookie, hashed: it alone may collect the session after approval.
    @OptionalField(key: "browser_secret_hash") package var browserSecretHash: String?
    /// When that page collected its session (once).
    @OptionalField(key: "session_claimed_at") package var sessionClaimedAt: Date?
    /// For an enrollment started from a session signed in on a fleet device: that device, which
    /// the enrolled phone then belongs to.
    @OptionalField(key: "fleet_device_id") package var fleetDeviceID: UUID?

    package init() {}
}
