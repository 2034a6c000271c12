import FluentKit
import Foundation

/// Who held a device, from a check-out to its check-in (issue 40). A custody begins when a person
/// signs in on the device (email link, Sign in with Apple, Native SSO, the phone approving an
/// out-of-band request) and ends when the device's next logout run starts: the hand-over. The run
/// then holds each app's and each backend's outcome.
package final class Custody: Model, @unchecked Sendable {
    package static let schema = "custodies"

    /// How the custody began.
    package enum CheckOut: String, Codable, Sendable {
        case emailLink = "email_link"
        case signInWithApple = "sign_in_with_apple"
        case nativeSSO = "native_sso"
        case outOfBand = "out_of_band"
        /// The launcher checked the person out with their access token.
        case launcher
        /// The launcher checked the person out by their badge, through the badge lookup.
        case badge

        /// How a page says it: "email link", "badge".
        package var words: String {
            switch self {
            case .emailLink: "email link"
            case .signInWithApple: "Sign in with Apple"
            case .nativeSSO: "Native SSO"
            case .outOfBand: "out-of-band approval"
            case .launcher: "the launcher"
            case .badge: "badge"
            }
        }
    }

    @ID(key: .id) package var id: UUID?
    @Field(key: "device_id") package var deviceID: UUID
    /// The person: Handover's user, identified by the server's issuer and this id as subject.
    @Field(key: "user_id") package var userID: UUID
    /// The name and email as the sign-in gave them, kept as given.
    @OptionalField(key: "person_name") package var personName: String?
    @OptionalField(key: "person_email") package var personEmail: String?
    /// The device's site at check-out, as written.
    @OptionalField(key: "site") package var site: String?
    /// That site's ``SiteName/key``: what the custody report's site scope compares.
    @OptionalField(key: "site_key") package var siteKey: String?
    @Field(key: "checked_out_by") package var checkedOutBy: String
    @Field(key: "checked_out_at") package var checkedOutAt: Date
    @OptionalField(key: "checked_in_at") package var checkedInAt: Date?
    /// The logout run that ended it: the hand-over, with every app's outcome.
    @OptionalField(key: "run_id") package var runID: UUID?
    /// For a badge check-out: a keyed digest of the badge (the badge itself is never kept).
    @OptionalField(key: "badge_digest") package var badgeDigest: String?
    /// Why it ended without a run: the next person signed in on the device first.
    @OptionalField(key: "ended_without_run") package var endedWithoutRun: String?

    package init() {}

    /// How a page names the person: the name, else the email, else the user id.
    package var personLabel: String { personName ?? personEmail ?? userID.uuidString.lowercased() }
}
