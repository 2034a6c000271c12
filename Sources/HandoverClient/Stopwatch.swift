/// Elapsed time on an injected clock since a fixed start, so that a `TestClock` drives every
/// deadline in tests.
///
/// Deadlines are absolute: ``sleep(untilElapsed:)`` waits for the instant `start + limit`, not
/// for a duration measured from whenever the waiting task happens to run. A task scheduled late
/// therefore cannot push a deadline back.
struct Stopwatch: Sendable {
    private let elapsedSinceStart: @Sendable () -> Duration
    private let sleepUntilElapsed: @Sendable (Duration) async throws -> Void

    init(clock: any Clock<Duration>) {
        (elapsedSinceStart, sleepUntilElapsed) = Self.start(clock)
    }

    private static func start<C: Clock<Duration>>(_ clock: C)
        -> (@Sendable () -> Duration, @Sendable (Duration) async throws -> Void) {
        let start = clock.now
        return ({ start.duration(to: clock.now) },
                { limit in try await clock.sleep(until: start.advanced(by: limit), tolerance: nil) })
    }

    /// Time since the stopwatch was made.
    var elapsed: Duration { elapsedSinceStart() }

    /// Sleeps until `limit` after the stopwatch was made (at once if that has passed).
    func sleep(untilElapsed limit: Duration) async throws {
        try await sleepUntilElapsed(limit)
    }
}
