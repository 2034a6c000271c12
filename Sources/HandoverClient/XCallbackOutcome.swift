/// How an x-callback-url action ended, and so which reply target is opened.
public enum XCallbackOutcome: Sendable, Equatable {
    /// Opens `x-success` with these result parameters added.
    case success([String: String])
    /// Opens `x-error` with `errorCode` and `errorMessage` added.
    case failure(code: Int, message: String)
    /// Opens `x-cancel`.
    case cancelled
}
