/// What a logout run achieved, per app.
public struct LogoutReport: Sendable, Equatable, Codable {
    /// How one app ended.
    public enum Outcome: String, Sendable, Equatable, Codable {
        /// The app opened its success URL (and, when checked, the user is signed out).
        case succeeded
        /// The app opened its error URL, or claimed success while the user stayed signed in.
        case failed
        /// No answer after the first send and every resend.
        case timedOut = "timed_out"
    }

    /// One app's line in the report.
    public struct Entry: Sendable, Equatable, Codable {
        public var app: String
        public var outcome: Outcome
        /// Sends of the link, the first included.
        public var attempts: Int
        /// Time from the first send to the outcome, in milliseconds of the injected clock.
        public var durationMilliseconds: Int64
        /// For a failure: why.
        public var reason: String?

        public init(app: String, outcome: Outcome, attempts: Int, durationMilliseconds: Int64, reason: String? = nil) {
            self.app = app
            self.outcome = outcome
            self.attempts = attempts
            self.durationMilliseconds = durationMilliseconds
            self.reason = reason
        }
    }

    /// The run's identifier, which appears in every callback URL.
    public var runID: String
    /// One entry per app, in the order the apps were given.
    public var entries: [Entry]

    public init(runID: String, entries: [Entry]) {
        self.runID = runID
        self.entries = entries
    }

    /// Whether every app succeeded.
    public var allSucceeded: Bool { entries.allSatisfy { $0.outcome == .succeeded } }
}
