import Foundation

/// The pages a browser shows for an email sign-in link (`/auth/email/verify`): the one-click
/// confirmation (so that mail scanners that fetch links do not use the token up), the page once
/// signed in, and the refusals (a post from another site, an expired or used link, too many
/// wrong links). The server answers each with its status, no-store and no referrer.
package enum EmailSignInPage {
    /// The confirmation for the link `token` of `email`: a button that posts it back.
    package static func confirm(email: String, token: String) -> HTMLPage {
        let form = HTML.element("form", ["method": "post", "action": "/auth/email/verify"]) {
            HTML.element("input", ["type": "hidden", "name": "token", "value": token])
            HTML.element("button", ["type": "submit"]) { "Sign in on this browser" }
        }
        return HTMLPage(title: "Sign in", heading: "Sign in as \(email)", paragraphs: [
            "You opened your sign-in link in a browser. Sign in here, on this browser?",
            "To sign in on your phone instead, open the link there.",
        ], extra: form)
    }

    /// A post that came from another site (login CSRF): not signed in.
    package static let otherSite = HTMLPage(title: "Not signed in", heading: "This sign-in did not come from this site",
                                            paragraphs: ["Open the sign-in link from your email directly, then press the button on its page."])

    /// Signed in on this browser as `email`.
    package static func signedIn(email: String) -> HTMLPage {
        HTMLPage(title: "Signed in", heading: "Signed in",
                 paragraphs: ["You are signed in on this browser as \(email). You can close this page."])
    }

    /// The link is unknown, used or expired.
    package static let expired = HTMLPage(title: "Link expired", heading: "This link no longer works",
                                          paragraphs: ["Sign-in links work once and expire after 15 minutes. Ask for a new one in the app."])

    /// Too many wrong links from this address: try again in `wait` seconds.
    package static func tooManyAttempts(wait: Int) -> HTMLPage {
        HTMLPage(title: "Too many attempts", heading: "Too many attempts", paragraphs: ["Try again in \(wait) seconds."])
    }
}
