import Foundation

/// What a ``LogoutReceiver`` did, for the app's logging. Read them from
/// ``LogoutReceiver/events``.
public enum ReceiverEvent: Sendable, Equatable {
    /// A link was checked and journaled; `handle(_:)` returned `true`.
    case accepted(id: String)
    /// A link equal to one still in flight joined it; no second logout runs.
    case joinedInFlight(id: String)
    /// A link was refused; `handle(_:)` returned `false`.
    case rejected(ReceiverRejection)
    /// A command found in the journal at launch will be completed.
    case recovered(id: String)
    /// The handler started (attempt counts from 1).
    case attemptStarted(id: String, attempt: Int)
    /// An attempt failed; `retryIn` is the backoff, or `nil` when no retry follows.
    case attemptFailed(id: String, attempt: Int, reason: String, retryIn: Duration?)
    /// The deadline passed before the handler finished; the error URL is opened.
    case deadlinePassed(id: String)
    /// The success or error URL was opened.
    case callbackOpened(id: String, answer: CommandAnswer, url: URL)
    /// The system did not open the callback (the opener returned `false`).
    case callbackNotOpened(id: String, url: URL)
    /// The policy refused to open the callback. The logout still happened.
    case callbackRefused(id: String, answer: CommandAnswer, reason: String)
    /// The journal could not be written or read.
    case journalFailed(String)
}
