import NIOConcurrencyHelpers
import Clocks

/// Runs work against a `TestClock`, moving time forward whenever every task is idle, so that
/// 20-second timeouts pass in milliseconds of wall time.
///
/// The clock wakes each sleeper at its exact deadline in order (`TestClock.advance(to:)`), so
/// the step only bounds how far time moves per round, not the precision of any deadline.
///
/// `afterStep` runs after each step with the step's length: a simulation against a server with
/// its own manual clock moves that clock and fires its deadlines there.
public enum SimulatedTimeDriver {
    public static func run<Value: Sendable>(clock: TestClock<Duration>, step: Duration = .milliseconds(100),
                                            limit: Duration = .seconds(3600),
                                            afterStep: (@Sendable (Duration) async -> Void)? = nil,
                                            _ work: @escaping @Sendable () async -> Value) async -> Value? {
        let result = NIOLockedValueBox<Value?>(nil)
        let task = Task {
            let value = await work()
            result.withLockedValue { $0 = value }
        }
        var simulated = Duration.zero
        while result.withLockedValue({ $0 == nil }) && simulated < limit {
            for _ in 0..<50 { await Task.yield() }
            await clock.advance(by: step)
            simulated += step
            if let afterStep { await afterStep(step) }
        }
        if result.withLockedValue({ $0 == nil }) { task.cancel() }
        await task.value
        return result.withLockedValue { $0 }
    }
}
