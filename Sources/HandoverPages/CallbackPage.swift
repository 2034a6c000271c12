import Foundation
import HandoverProtocol

/// The page a browser shows when an app's callback link opens in it instead of in the launcher
/// (`/ulc/cb/<run>/<item>/<outcome>`): the outcome was recorded as the launcher's report would
/// be, and the page says what happened. The server answers each with its status and no-store.
package enum CallbackPage {
    /// A link that is malformed or belongs to no run: `advice` says what to do.
    package static func linkNotValid(_ advice: String) -> HTMLPage {
        page("Link not valid", "This sign-out link is not valid.", advice)
    }

    /// A malformed link: the launcher tries again.
    package static let malformed = linkNotValid("Return to the launcher; it will try again.")

    /// A link of no run this server knows.
    package static let unknown = linkNotValid("It may be from another run. Return to the launcher; it will try again.")

    /// `app` signed out.
    package static func signedOut(_ app: String) -> HTMLPage {
        page("Signed out", "Signed out of \(app).", "You can return to the launcher.")
    }

    /// `app` answered that it could not sign out.
    package static func signOutFailed(_ app: String) -> HTMLPage {
        page("Sign-out failed", "\(app) could not sign out.", "The launcher has been told. Return to it, or ask IT if it keeps happening.")
    }

    /// The link was used already: `app`'s item is recorded as `status`, and nothing changed.
    package static func alreadyRecorded(_ app: String, status: LogoutItemState) -> HTMLPage {
        page("Already recorded", "This link was used already.",
             "\(app)'s sign-out is recorded as \(status.rawValue.replacingOccurrences(of: "_", with: " ")); nothing changed.")
    }

    /// A one-paragraph page: `title`, `heading` and `text`.
    package static func page(_ title: String, _ heading: String, _ text: String) -> HTMLPage {
        HTMLPage(title: title, heading: heading, paragraphs: [text])
    }
}
