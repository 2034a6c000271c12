import HandoverClient

/// How a simulated target app answers a logout link.
///
/// `conformant`, `flaky`, `failing` and `killed` run a real ``HandoverClient/LogoutReceiver``.
/// `slow`, `silent` and `premature` model apps that handle the link with their own code, the
/// way apps do without HandoverClient: a receiver never exceeds its deadline, always answers,
/// and answers only after the logout.
public enum AppBehaviour: String, Sendable, CaseIterable, Codable {
    /// Logs out in 1 s and opens the success URL.
    case conformant
    /// Takes 30 s, longer than the 20 s budget, then opens the success URL (too late).
    case slow
    /// Logs out but never calls back.
    case silent
    /// Fails with a retryable error once, then succeeds on the receiver's retry.
    case flaky
    /// Fails with an unrecoverable error: opens the error URL.
    case failing
    /// Opens the success URL at once and logs out 3 s later: the cold-start race.
    case premature
    /// Conformant, but force-quit just before the link arrives: the link cold-starts it.
    case killed

    /// Whether the app is built on a real `LogoutReceiver`.
    public var usesReceiver: Bool {
        switch self {
        case .conformant, .flaky, .failing, .killed: true
        case .slow, .silent, .premature: false
        }
    }
}

extension AppBehaviour {
    /// How a launcher's report should end for an app with this behaviour: the outcome that
    /// proves the launcher and the server judged it right.
    public var expectedOutcome: LogoutReport.Outcome {
        switch self {
        case .conformant, .flaky, .killed: .succeeded
        case .slow, .silent: .timedOut
        case .failing, .premature: .failed
        }
    }

    /// One line for people: what the app does.
    public var summary: String {
        switch self {
        case .conformant: "logs out in 1 s and calls back"
        case .slow: "takes 30 s, longer than the 20 s budget"
        case .silent: "logs out but never calls back"
        case .flaky: "fails once (retryable); its receiver retries"
        case .failing: "fails for good and opens the error URL"
        case .premature: "calls back before its logout is done"
        case .killed: "force-quit just before the link; the link cold-starts it"
        }
    }
}
