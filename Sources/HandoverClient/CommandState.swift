/// Where a received logout command is in its life, as a value with explicit transitions:
///
/// ```
/// received ─journal─▶ journaled ─start─▶ running(1) ─retry─▶ running(2) …
///                                            │ callbackOpened(answer)  │ callbackRefused(answer)
///                                            ▼                         ▼
///                                      callbackOpened ──finish──▶    done
/// ```
///
/// After a kill, ``recovered`` says where to pick up: a command that was journaled or running
/// runs again (the handler is idempotent), one whose callback was opened is done.
public enum CommandState: Sendable, Equatable, Codable {
    /// Checked by the policy, not yet durable. Never written to the journal.
    case received
    /// Durable: `handle(_:)` may now return `true`.
    case journaled
    /// The handler is running; `attempt` counts from 1.
    case running(attempt: Int)
    /// The success or error URL was opened.
    case callbackOpened(CommandAnswer)
    /// Finished; removed from the journal.
    case done(CommandAnswer)

    /// What happens to a command.
    public enum Event: Sendable, Equatable {
        case journal
        case start
        case retry
        case callbackOpened(CommandAnswer)
        /// The policy refused the callback: the logout happened, nothing is opened.
        case callbackRefused(CommandAnswer)
        case finish
    }

    /// The state after `event`, or a ``CommandTransitionError`` when the event cannot happen now.
    public func applying(_ event: Event) throws(CommandTransitionError) -> CommandState {
        switch (self, event) {
        case (.received, .journal):
            return .journaled
        case (.journaled, .start):
            return .running(attempt: 1)
        case (.running(let attempt), .retry):
            return .running(attempt: attempt + 1)
        case (.running, .callbackOpened(let answer)):
            return .callbackOpened(answer)
        case (.running, .callbackRefused(let answer)):
            return .done(answer)
        case (.callbackOpened(let answer), .finish):
            return .done(answer)
        case (.received, _), (.journaled, _), (.running, _), (.callbackOpened, _), (.done, _):
            throw CommandTransitionError(state: self, event: event)
        }
    }

    /// The state to resume from after the app was killed and relaunched.
    public var recovered: CommandState {
        switch self {
        case .received, .journaled, .running: .journaled
        case .callbackOpened(let answer), .done(let answer): .done(answer)
        }
    }

    /// Whether the command still needs work.
    public var isFinished: Bool {
        switch self {
        case .done: true
        case .received, .journaled, .running, .callbackOpened: false
        }
    }
}

/// The answer a receiver gives: which callback, and why.
public struct CommandAnswer: Sendable, Equatable, Codable {
    /// Which callback URL the answer goes to.
    public enum Kind: String, Sendable, Codable { case success, error }

    public var kind: Kind
    /// For an error: what went wrong, for logs.
    public var reason: String?

    public init(kind: Kind, reason: String? = nil) {
        self.kind = kind
        self.reason = reason
    }

    public static let success = CommandAnswer(kind: .success)
    public static func error(_ reason: String) -> CommandAnswer { CommandAnswer(kind: .error, reason: reason) }
}

/// An event that cannot happen in a command's current state: a bug in the caller, reported
/// instead of trapping.
public struct CommandTransitionError: Error, Sendable, Equatable, CustomStringConvertible {
    public var state: CommandState
    public var event: CommandState.Event

    public var description: String { "a command in state \(state) cannot take the event \(event)" }
}
