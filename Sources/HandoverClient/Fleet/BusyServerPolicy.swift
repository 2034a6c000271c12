/// How long the SDK waits before it asks a busy Handover server again.
///
/// A server past its capacity answers `503 Service Unavailable` (or `429 Too Many Requests`)
/// with `Retry-After`, and ``FleetServer`` and ``HandoverAPIConnection`` send the request again
/// after ``wait(afterAttempt:retryAfter:waitedSoFar:using:)``: the server's own delay plus a
/// random back-off ("full jitter": uniform between zero and a ceiling that doubles from
/// ``initialBackoff`` up to ``maximumBackoff``), so thousands of launchers shed at once do not
/// come back at once. They give up, and report the server's answer, when the next wait would take
/// the time spent waiting past ``budget``.
///
/// The policy is a pure value: the same generator gives the same waits.
///
/// ```swift
/// let policy = BusyServerPolicy()            // 0.5 s doubling to 30 s, 300 s in all
/// var generator = SystemRandomNumberGenerator()
/// let wait = policy.wait(afterAttempt: 1, retryAfter: .seconds(2), waitedSoFar: .zero, using: &generator)
/// // 2 s to 2.5 s
/// ```
public struct BusyServerPolicy: Sendable, Equatable {
    /// The ceiling of the random back-off after the first attempt; it doubles with each attempt.
    public let initialBackoff: Duration
    /// The highest ceiling of the random back-off, and the longest `Retry-After` honoured as sent
    /// (a longer one is shortened to this).
    public let maximumBackoff: Duration
    /// The most time spent waiting, all waits of one call together; past it the call reports the
    /// server's last answer.
    public let budget: Duration

    /// - Parameters:
    ///   - initialBackoff: the ceiling of the random back-off after the first attempt (0.5 s).
    ///   - maximumBackoff: the highest ceiling, and the longest `Retry-After` honoured (30 s).
    ///   - budget: the most time spent waiting in one call (300 s).
    ///
    /// An initial back-off below a millisecond counts as a millisecond (so that waits grow until
    /// they reach the budget), a maximum below the initial back-off as the initial back-off, and a
    /// negative budget as zero.
    public init(initialBackoff: Duration = .milliseconds(500), maximumBackoff: Duration = .seconds(30),
                budget: Duration = .seconds(300)) {
        self.initialBackoff = max(.milliseconds(1), initialBackoff)
        self.maximumBackoff = max(self.initialBackoff, maximumBackoff)
        self.budget = max(.zero, budget)
    }

    /// The wait before attempt `attempt + 1`, after attempt number `attempt` (1-based) found the
    /// server busy; `nil` when that wait would take the time spent waiting past ``budget``.
    ///
    /// The wait is `retryAfter` (at most ``maximumBackoff``; zero when absent) plus a uniform
    /// random duration between zero and `min(maximumBackoff, initialBackoff · 2^(attempt − 1))`,
    /// to the nanosecond. Any attempt number is accepted: the exponent stops growing once the
    /// ceiling has reached the maximum, so nothing overflows; an attempt below 1 counts as 1.
    ///
    /// - Parameters:
    ///   - attempt: how many attempts were made, the one that failed included.
    ///   - retryAfter: the delay the server asked for in `Retry-After`, if it sent one.
    ///   - waitedSoFar: the time this call has already spent waiting (the sum of earlier waits).
    ///   - generator: the source of the jitter.
    public func wait(afterAttempt attempt: Int, retryAfter: Duration?, waitedSoFar: Duration,
                     using generator: inout some RandomNumberGenerator) -> Duration? {
        let waited = max(.zero, waitedSoFar)
        let asked = min(max(.zero, retryAfter ?? .zero), maximumBackoff)
        let jitter = Self.nanoseconds(in: ceiling(afterAttempt: attempt), using: &generator)
        // Compared by subtraction of values in 0...budget, so no sum can overflow.
        guard waited <= budget, asked <= budget - waited, jitter <= budget - waited - asked else { return nil }
        return asked + jitter
    }

    /// `min(maximumBackoff, initialBackoff · 2^(attempt − 1))`, doubling only while below the
    /// maximum (at most about 128 times, as a Duration is 128 bits of attoseconds).
    func ceiling(afterAttempt attempt: Int) -> Duration {
        var ceiling = initialBackoff
        var doublings = max(1, attempt) - 1
        while doublings > 0, ceiling < maximumBackoff {
            guard ceiling > .zero else { return .zero }
            if ceiling > maximumBackoff / 2 { return maximumBackoff }
            ceiling = ceiling * 2
            doublings -= 1
        }
        return min(ceiling, maximumBackoff)
    }

    /// A uniform random duration in `0...ceiling`, in whole nanoseconds.
    private static func nanoseconds(in ceiling: Duration, using generator: inout some RandomNumberGenerator) -> Duration {
        guard ceiling > .zero else { return .zero }
        // 2^63 − 1 ns is 292 years: a ceiling beyond it is drawn up to it.
        let limit: UInt64
        if ceiling >= .nanoseconds(Int64.max) {
            limit = UInt64(Int64.max)
        } else {
            let (seconds, attoseconds) = ceiling.components
            limit = UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
        }
        return .nanoseconds(Int64(UInt64.random(in: 0...limit, using: &generator)))
    }
}
