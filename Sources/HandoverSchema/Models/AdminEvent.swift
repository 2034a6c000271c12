import FluentKit
import SQLKit
import Foundation

/// What a person (or a key) did as an administrator, and every dashboard sign-in, sign-out and
/// refusal: who (as far as known), what, and why a refusal was made. The dashboard's People page
/// lists them. A device's own steps are in its history instead (`device_events`).
package final class AdminEvent: Model, @unchecked Sendable {
    package static let schema = "admin_events"

    /// What happened.
    package enum Kind: String, Codable, Sendable {
        case signedIn = "signed_in"
        case refused
        case signedOut = "signed_out"
        /// The provider's logout token ended the person's sessions.
        case loggedOutByProvider = "logged_out_by_provider"
        /// An admin key opened the dashboard while a provider is configured.
        case breakGlass = "break_glass"
        /// An app registered, changed or removed.
        case appChanged = "app_changed"
        /// A webhook added, or its secret rotated.
        case webhookChanged = "webhook_changed"
        /// A device added or changed (its steps of service are in its own history).
        case deviceChanged = "device_changed"
        /// An API key made or revoked.
        case keyChanged = "key_changed"
        /// A client granted, or no longer granted, the whole fleet's security events (``SignalsAudience``).
        case signalsGranted = "signals_granted"
        /// An admin changed the roles a person has besides the provider's (the People page).
        case rolesChanged = "roles_changed"
        /// The directory (a SCIM client) provisioned or changed a person or a group.
        case provisioned
        /// The directory deactivated or deleted a person: everything they held was ended.
        case deprovisioned
    }

    @ID(key: .id) package var id: UUID?
    @Field(key: "at") package var at: Date
    @Field(key: "kind") package var kind: String
    @OptionalField(key: "person_id") package var personID: UUID?
    /// Who, as shown: the person's name and email, or the key's name and prefix.
    @Field(key: "who") package var who: String
    /// For a refusal, the sentence the sign-in page showed; otherwise the grants or a note.
    @Field(key: "detail") package var detail: String

    package init() {}
}
