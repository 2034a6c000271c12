import Foundation

/// What the app's own logout code reports when it finishes.
public enum LogoutOutcome: String, Sendable, Codable, Equatable {
    /// A user was signed in and is now signed out.
    case signedOut = "signed_out"
    /// Nobody was signed in; nothing had to be done. The receiver still opens the success URL,
    /// as the spec asks.
    case nobodySignedIn = "nobody_signed_in"
}

/// A logout that did not succeed. Throw it from a ``LogoutHandler``.
///
/// Mark it ``isRetryable`` when trying again may work (the back end timed out, the network
/// dropped): the receiver retries with backoff inside its deadline before it reports an error.
/// Any other error a handler throws is treated as not retryable.
public struct LogoutFailure: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    /// A sentence for logs: "the session server answered 503".
    public var message: String
    /// Whether a retry may succeed.
    public var isRetryable: Bool

    public init(_ message: String, isRetryable: Bool) {
        self.message = message
        self.isRetryable = isRetryable
    }

    public var description: String { message + (isRetryable ? " (retryable)" : "") }
}

/// The app's logout code: purge caches, end the back-end session, forget the user.
///
/// It runs with no UI, may be called again for the same link (a resend, or a recovery after a
/// force-quit), and so must be idempotent. It should honour task cancellation: the receiver
/// cancels it when the deadline passes, and answers without waiting for it.
public protocol LogoutHandler: Sendable {
    /// Signs the current user out.
    func logOut(_ command: LogoutCommand) async throws -> LogoutOutcome
}

/// A ``LogoutHandler`` made from a closure.
public struct LogoutClosure: LogoutHandler {
    private let body: @Sendable (LogoutCommand) async throws -> LogoutOutcome

    public init(_ body: @escaping @Sendable (LogoutCommand) async throws -> LogoutOutcome) {
        self.body = body
    }

    public func logOut(_ command: LogoutCommand) async throws -> LogoutOutcome {
        try await body(command)
    }
}
