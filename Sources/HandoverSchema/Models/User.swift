import FluentKit
import Foundation

/// A person who signed in with Apple (known by Apple's stable `sub` for this team) or by an
/// email link (known by the address).
package final class User: Model, @unchecked Sendable {
    package static let schema = "users"

    @ID(key: .id) package var id: UUID?
    /// Apple's `sub`: stable per user and team; `nil` for users who only signed in by email.
    @OptionalField(key: "apple_subject") package var appleSubject: String?
    /// The client id (`aud`) the user last signed in with Apple through; its secret revokes the token.
    @OptionalField(key: "apple_client_id") package var appleClientID: String?
    @OptionalField(key: "email") package var email: String?
    @OptionalField(key: "email_verified") package var emailVerified: Bool?
    @OptionalField(key: "is_private_email") package var isPrivateEmail: Bool?
    /// Set by Apple's `email-disabled` notification: the relay address no longer forwards.
    @Field(key: "email_forwarding_disabled") package var emailForwardingDisabled: Bool
    @OptionalField(key: "full_name") package var fullName: String?
    /// Apple's refresh token, AES-GCM sealed (see ``SecretSealer``).
    @OptionalField(key: "apple_refresh_token") package var appleRefreshToken: String?
    /// When Apple last confirmed the refresh token (sign-in counts).
    @OptionalField(key: "apple_validated_at") package var appleValidatedAt: Date?
    /// An instance checking with Apple holds this claim, so others do not check at once too.
    @OptionalField(key: "apple_check_claimed_until") package var appleCheckClaimedUntil: Date?
    @Field(key: "created_at") package var createdAt: Date
    /// The handle out-of-band operations name this user by, for a user who first signed in
    /// with their phone on the web sign-in page.
    @OptionalField(key: "oob_user_handle") package var outOfBandHandle: String?

    package init() {}
}
