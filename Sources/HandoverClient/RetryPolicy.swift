/// How a receiver retries a logout that failed with a retryable ``LogoutFailure``.
///
/// The wait doubles from ``initialBackoff`` up to ``maximumBackoff``. A retry is only started
/// when its wait ends before the deadline, so retrying never pushes the answer past it.
public struct RetryPolicy: Sendable, Equatable {
    /// The wait before the second attempt.
    public var initialBackoff: Duration
    /// The longest wait between attempts.
    public var maximumBackoff: Duration
    /// The most attempts, the first included.
    public var maximumAttempts: Int

    public init(initialBackoff: Duration = .milliseconds(500), maximumBackoff: Duration = .seconds(4), maximumAttempts: Int = 5) {
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
        self.maximumAttempts = max(1, maximumAttempts)
    }

    /// The wait after attempt number `attempt` (1-based) has failed.
    public func backoff(after attempt: Int) -> Duration {
        var wait = initialBackoff
        for _ in 1..<max(1, attempt) {
            wait = wait * 2
            if wait >= maximumBackoff { return maximumBackoff }
        }
        return min(wait, maximumBackoff)
    }
}
