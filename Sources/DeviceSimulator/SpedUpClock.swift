/// A clock that runs a whole number of times faster than real time, so a demonstration with
/// 20 s deadlines plays in a few seconds while every part still runs concurrently for real.
///
/// Unlike a `TestClock`, nothing has to advance it: it follows the continuous clock,
/// multiplied. Pair it with the server's `ScaledServerClock` of the same speed.
///
/// ```swift
/// let clock = SpedUpClock(speed: 10)
/// try await clock.sleep(for: .seconds(20))   // returns after about 2 s
/// ```
public struct SpedUpClock: Clock, Sendable {
    /// A point in sped-up time: how far it is from the clock's creation.
    public struct Instant: InstantProtocol, Sendable {
        /// Sped-up time since the clock was created.
        public var offset: Duration

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    /// How many times faster than real time; 1 is real time.
    public let speed: Int
    private let origin: ContinuousClock.Instant

    /// - Parameter speed: at least 1 (smaller values are taken as 1).
    public init(speed: Int) {
        self.speed = max(1, speed)
        self.origin = .now
    }

    public var now: Instant { Instant(offset: origin.duration(to: .now) * speed) }

    public var minimumResolution: Duration { .nanoseconds(1) }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try await Task.sleep(until: origin.advanced(by: deadline.offset / speed), tolerance: tolerance.map { $0 / speed },
                             clock: .continuous)
    }
}
