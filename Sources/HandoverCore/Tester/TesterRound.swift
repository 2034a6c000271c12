import Foundation

/// One round of a conformance test: a ULC link the app must answer (or, for the hostile round,
/// must not answer), and what arrived.
public struct TesterRound: Codable, Sendable, Equatable {
    /// What the round checks.
    public enum Kind: String, Codable, Sendable, CaseIterable {
        /// The link is answered, on the success or the error URL, within the budget.
        case callback
        /// The same link, opened twice, is answered twice.
        case duplicate
        /// A link whose callbacks go to a host outside the app's allowlist gets no answer.
        case hostile
    }

    /// Where the round stands.
    public enum Status: String, Codable, Sendable {
        /// Waiting for the person to start it.
        case ready
        /// Started: the link is out and the clock runs.
        case waiting
        case passed
        case failed
        /// Not applicable (no allowlist declared) or not reached (an earlier round failed).
        case skipped
    }

    /// A callback that reached the tester.
    public struct Arrival: Codable, Sendable, Equatable {
        /// `success` or `error`.
        public var outcome: String
        /// The host the app opened.
        public var host: String
        public var at: Date
    }

    public var kind: Kind
    public var status: Status
    /// The link to open (twice for the duplicate round).
    public var link: String
    public var nonce: String
    public var startedAt: Date?
    public var deadlineAt: Date?
    public var arrivals: [Arrival] = []
    /// Why it passed, failed or was skipped, in a sentence.
    public var detail: String?

    /// Seconds from the start to the first arrival.
    public var elapsed: TimeInterval? {
        guard let startedAt, let first = arrivals.first else { return nil }
        return first.at.timeIntervalSince(startedAt)
    }

    /// How many answers the round needs.
    public var expectedArrivals: Int {
        switch kind {
        case .callback: 1
        case .duplicate: 2
        case .hostile: 0
        }
    }

    /// What the person is asked to do.
    public var instruction: String {
        switch kind {
        case .callback: "Sign in to the app, force-quit it, then start the round and open the link."
        case .duplicate: "Start the round, then open the same link twice, one right after the other."
        case .hostile: "Start the round and open the link once. Its callbacks point at a host outside the app's allowlist: nothing may arrive."
        }
    }
}
