import FluentKit
import Foundation

/// A person who signed in through the organisation's OpenID Connect provider. The provider's
/// issuer and subject identify them; the name and email are kept as the provider last gave them
/// and shown, never used to identify.
package final class Person: Model, @unchecked Sendable {
    package static let schema = "people"

    @ID(key: .id) package var id: UUID?
    @Field(key: "issuer") package var issuer: String
    @Field(key: "subject") package var subject: String
    @OptionalField(key: "name") package var name: String?
    @OptionalField(key: "email") package var email: String?
    /// The grants of the last sign-in, as ``Permissions/text``: the provider's and the local ones
    /// together (``PersonRoles``).
    @Field(key: "grants") package var grants: String
    /// What the provider's role map gave at the last sign-in (nil before schema version 33:
    /// then ``grants`` is all the provider's).
    @OptionalField(key: "provider_grants") package var providerGrants: String?
    /// The roles an admin granted on the People page, added to the provider's at each sign-in
    /// (nil or empty: none).
    @OptionalField(key: "local_grants") package var localGrants: String?
    @Field(key: "first_seen_at") package var firstSeenAt: Date
    @Field(key: "last_sign_in_at") package var lastSignInAt: Date

    package init() {}

    /// How the dashboard and a device's history name this person: the name, else the email,
    /// else the subject.
    package var displayName: String { name ?? email ?? subject }
}
