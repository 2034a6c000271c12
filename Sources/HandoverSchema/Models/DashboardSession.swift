import FluentKit
import Foundation

/// A signed-in dashboard browser. The cookie holds a random token; only its SHA-256 hash is
/// stored. Each session has its own CSRF token, which every form must send back.
///
/// A session belongs to a person who signed in through the organisation's provider, or to the
/// admin key that signed in (break-glass when a provider is configured). It ends at
/// ``expiresAt`` (the absolute timeout), after ``SessionLimits/idle`` without a request, at
/// sign-out, or when the provider's logout token names its person or its provider session.
package final class DashboardSession: Model, @unchecked Sendable {
    package static let schema = "dashboard_sessions"

    @ID(key: .id) package var id: UUID?
    @Field(key: "token_hash") package var tokenHash: String
    @Field(key: "csrf_token") package var csrfToken: String
    /// The admin key that signed in, for a key session.
    @OptionalField(key: "api_key_id") package var apiKeyID: UUID?
    /// The person who signed in through the provider.
    @OptionalField(key: "person_id") package var personID: UUID?
    /// What the session may do, as ``Permissions/text`` (`admin`, `operator@ICU`, …).
    @Field(key: "grants") package var grants: String
    /// A key sign-in while a provider is configured (`--allow-key-sign-in`).
    @Field(key: "break_glass") package var breakGlass: Bool
    /// The provider's session id (`sid` of the ID token), which its logout token may name.
    @OptionalField(key: "provider_sid") package var providerSID: String?
    /// The ID token, sent back as `id_token_hint` when signing out at the provider.
    @OptionalField(key: "id_token") package var idToken: String?
    @Field(key: "created_at") package var createdAt: Date
    @Field(key: "last_seen_at") package var lastSeenAt: Date
    @Field(key: "expires_at") package var expiresAt: Date

    package init() {}
}
