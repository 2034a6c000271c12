import Foundation

/// The number-matching lock-out of an out-of-band sign-in, as a value (issue 65): the phone's
/// user types the code the other screen shows; a wrong code leaves fewer tries, and the last
/// wrong one fails the sign-in for good, so that a guesser gets three tries in a thousand, not a
/// thousand. ``OperationService`` counts the wrong codes in the operation's row, asks
/// ``verdict(afterWrong:)`` and applies it.
package enum CodeTries {
    /// How many wrong codes a sign-in takes before it fails.
    package static let maximum = 3

    /// What a wrong code comes to.
    package enum Verdict: Sendable, Equatable {
        /// Refused (422 `wrong_code`), with the tries left.
        case tryAgain(left: Int)
        /// The last try: the sign-in fails (403 `wrong_number`); it starts again from the other screen.
        case failed
    }

    /// The verdict after the `attempts`-th wrong code (from 1).
    package static func verdict(afterWrong attempts: Int) -> Verdict {
        let left = maximum - attempts
        return left > 0 ? .tryAgain(left: left) : .failed
    }
}
