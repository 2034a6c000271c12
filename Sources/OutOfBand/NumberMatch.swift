/// Number matching against push fatigue: the phone shows a few two-digit numbers, the page the
/// user signs in on shows one of them, and the user must pick that one to approve.
///
/// A user who did not start the sign-in sees no number to match, so an attacker who spams
/// requests cannot win by the user tapping "approve" out of habit. The correct number goes to
/// the page only, never into the envelope.
///
/// ```swift
/// let match = NumberMatch.random()          // choices [27, 81, 44], correct 81
/// envelope.numberChoices = match.choices    // to the phone
/// page.show(match.correct)                  // to the browser
/// ```
public struct NumberMatch: Sendable, Hashable {
    /// The numbers the phone offers, in the order shown.
    public let choices: [Int]
    /// The one shown on the initiating page.
    public let correct: Int

    /// The range every choice falls in.
    public static let range = 10...99
    /// How many choices an envelope may carry.
    public static let choiceCount = 2...9

    /// `count` distinct two-digit numbers (three by default), one of them correct, from `generator`.
    public static func random<G: RandomNumberGenerator>(count: Int = 3, using generator: inout G) -> NumberMatch {
        let count = min(max(count, choiceCount.lowerBound), choiceCount.upperBound)
        var choices: [Int] = []
        while choices.count < count {
            let candidate = Int.random(in: range, using: &generator)
            if !choices.contains(candidate) { choices.append(candidate) }
        }
        let correct = choices[Int.random(in: 0..<count, using: &generator)]
        return NumberMatch(choices: choices, correct: correct)
    }

    /// `count` distinct two-digit numbers from the system's secure random source.
    public static func random(count: Int = 3) -> NumberMatch {
        var generator = SystemRandomNumberGenerator()
        return random(count: count, using: &generator)
    }

    public init(choices: [Int], correct: Int) {
        self.choices = choices
        self.correct = correct
    }

    /// Checks a list of choices as an envelope carries it.
    static func validate(_ choices: [Int], field: String = "numberChoices") throws(OutOfBandError) {
        let accepted = "\(choiceCount.lowerBound) to \(choiceCount.upperBound) distinct numbers from \(range.lowerBound) to \(range.upperBound)"
        guard choiceCount.contains(choices.count) else {
            throw OutOfBandError(field: field, problem: .invalidValue, detail: "there are \(choices.count) choices", accepted: accepted)
        }
        if let outside = choices.first(where: { !range.contains($0) }) {
            throw OutOfBandError(field: field, problem: .invalidValue, detail: "\(outside) is not a two-digit number", accepted: accepted)
        }
        guard Set(choices).count == choices.count else {
            throw OutOfBandError(field: field, problem: .invalidValue, detail: "a number appears twice", accepted: accepted)
        }
    }
}
