/// Elapsed time on an injected clock, so that a `TestClock` drives every deadline in tests.
struct Stopwatch: Sendable {
    private let elapsedSinceStart: @Sendable () -> Duration

    init(clock: any Clock<Duration>) {
        elapsedSinceStart = Self.start(clock)
    }

    private static func start<C: Clock<Duration>>(_ clock: C) -> @Sendable () -> Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }

    /// Time since the stopwatch was made.
    var elapsed: Duration { elapsedSinceStart() }
}
