import Foundation

/// The page a browser shows when an app under test opens the tester's callback link
/// (`/tester/cb/<test>/<round>/<outcome>`) in it: whether the tester took the callback, and
/// where to see the verdict. The server answers each with its status.
package enum TesterCallbackPage {
    /// A link that is not a tester callback at all (a wrong outcome, no nonce).
    package static let malformed = CallbackPage.page("Link not valid", "This test link is not valid.", "Check the link and try again.")

    /// A well-formed link of no test or round the tester knows.
    package static let unknown = CallbackPage.page("Link not valid", "This test link is not valid.", "It may belong to another test.")

    /// The tester recorded the `outcome` (`success` or `error`) callback.
    package static func received(_ outcome: String) -> HTMLPage {
        CallbackPage.page("Callback received", "The tester received the \(outcome) callback.", "Return to the tester page to see the verdict.")
    }

    /// The round is not waiting for a callback.
    package static let notWaiting = CallbackPage.page("Round not running", "This test round is not waiting for a callback.",
                                                      "Start the round on the tester page first, or start a new test.")
}
