import HandoverProtocol

/// What a logout run achieved, per app.
public struct LogoutReport: Sendable, Equatable, Codable {
    /// How one app ended (the contract's `AppLogoutOutcome`: succeeded, failed or timed out).
    public typealias Outcome = AppLogoutOutcome

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
