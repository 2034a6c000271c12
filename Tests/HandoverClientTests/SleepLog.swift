import Clocks
import Foundation

/// A `TestClock` that tells the test each wait the code under test asks it for, as it asks: the
/// test reads the wait from ``waits`` (or ``all``), checks it, and moves the clock past it.
final class SleepLog: @unchecked Sendable {
    /// The clock the code under test sleeps on.
    struct Recording: Clock {
        typealias Instant = TestClock<Swift.Duration>.Instant
        let log: SleepLog

        var now: Instant { log.base.now }
        var minimumResolution: Swift.Duration { .zero }

        func sleep(until deadline: Instant, tolerance: Swift.Duration?) async throws {
            log.record(log.base.now.duration(to: deadline))
            try await log.base.sleep(until: deadline, tolerance: tolerance)
        }
    }

    let base = TestClock<Swift.Duration>()
    /// Each wait, in the order asked.
    let waits: AsyncStream<Duration>
    private let continuation: AsyncStream<Duration>.Continuation
    private let lock = NSLock()
    private var recorded: [Duration] = []

    init() {
        (waits, continuation) = AsyncStream.makeStream(of: Duration.self)
    }

    var clock: Recording { Recording(log: self) }

    /// Every wait asked so far.
    var all: [Duration] { lock.withLock { recorded } }

    private func record(_ wait: Duration) {
        lock.withLock { recorded.append(wait) }
        continuation.yield(wait)
    }

    /// Moves the clock past `wait` (a nanosecond more: the sleeper may register its deadline only
    /// after the clock reached it, and a deadline in the past ends its sleep at once).
    func pass(_ wait: Duration) async {
        await base.advance(by: wait + .nanoseconds(1))
    }

    /// Ends ``waits`` once `call` has ended: a test that waits for a wait the call never asked
    /// for fails then, not at its time limit.
    func endWaits<Success: Sendable>(after call: Task<Success, any Error>) {
        let continuation = self.continuation
        Task {
            _ = await call.result
            continuation.finish()
        }
    }

    /// Passes every wait as it is asked, until the task is cancelled.
    func passingEveryWait() -> Task<Void, Never> {
        Task {
            for await wait in waits { await pass(wait) }
        }
    }
}
