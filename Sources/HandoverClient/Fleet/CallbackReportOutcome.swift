/// What the server did with a callback the launcher reported.
public enum CallbackReportOutcome: Sendable, Equatable {
    /// Recorded: the item is now `succeeded` or `failed` (the server's status).
    case recorded(status: String)
    /// The item already had its outcome; nothing was recorded (HTTP 409).
    case alreadyRecorded
    /// The nonce was not issued for that item (HTTP 404).
    case unknown
}
