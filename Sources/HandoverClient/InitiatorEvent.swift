import Foundation

/// What a ``LogoutInitiator`` did, for the launcher's logging.
public enum InitiatorEvent: Sendable, Equatable {
    case sent(app: String, attempt: Int, link: URL)
    case answered(app: String, outcome: LogoutReport.Outcome, reason: String?)
    case timedOut(app: String, attempt: Int)
    case callbackRejected(url: String, reason: CallbackRejection)
    case resumed(runID: String)
    case journalFailed(String)
}
