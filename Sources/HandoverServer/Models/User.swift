import Fluent
import Foundation
import HandoverCore

/// A person who signed in with Apple (known by Apple's stable `sub` for this team) or by an
/// email link (known by the address).
final class User: Model, @unchecked Sendable {
    static let schema = "users"

    @ID(key: .id) var id: UUID?
    /// Apple's `sub`: stable per user and team; `nil` for users who only signed in by email.
    @OptionalField(key: "apple_subject") var appleSubject: String?
    /// The client id (`aud`) the user last signed in with Apple through; its secret revokes the token.
    @OptionalField(key: "apple_client_id") var appleClientID: String?
    @OptionalField(key: "email") var email: String?
    @OptionalField(key: "email_verified") var emailVerified: Bool?
    @OptionalField(key: "is_private_email") var isPrivateEmail: Bool?
    /// Set by Apple's `email-disabled` notification: the relay address no longer forwards.
    @Field(key: "email_forwarding_disabled") var emailForwardingDisabled: Bool
    @OptionalField(key: "full_name") var fullName: String?
    /// Apple's refresh token, AES-GCM sealed (see ``SecretSealer``).
    @OptionalField(key: "apple_refresh_token") var appleRefreshToken: String?
    /// When Apple last confirmed the refresh token (sign-in counts).
    @OptionalField(key: "apple_validated_at") var appleValidatedAt: Date?
    /// An instance checking with Apple holds this claim, so others do not check at once too.
    @OptionalField(key: "apple_check_claimed_until") var appleCheckClaimedUntil: Date?
    @Field(key: "created_at") var createdAt: Date
    /// The handle out-of-band operations name this user by, for a user who first signed in
    /// with their phone on the web sign-in page.
    @OptionalField(key: "oob_user_handle") var outOfBandHandle: String?

    init() {}
}
