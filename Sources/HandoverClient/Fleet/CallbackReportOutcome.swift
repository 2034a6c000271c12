import HandoverProtocol

/// What the server did with a callback the launcher reported.
public enum CallbackReportOutcome: Sendable, Equatable {
    /// Recorded: the item is now `LogoutItemState.succeeded` or `LogoutItemState.failed`.
    case recorded(status: LogoutItemState)
    /// The item already had its outcome; nothing was recorded (HTTP 409).
    case alreadyRecorded
    /// The nonce was not issued for that item (HTTP 404).
    case unknown
}
