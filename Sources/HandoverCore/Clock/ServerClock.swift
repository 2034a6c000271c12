import Foundation
import NIOConcurrencyHelpers

/// The server's sense of time: "now", and waiting. Deadlines, webhook back-off and the Shared
/// Signals long poll read it, so tests move time forward instead of sleeping.
public protocol ServerClock: Sendable {
    /// The current time on this clock.
    func now() -> Date
    /// Waits until `duration` has passed on this clock; throws `CancellationError` when the task
    /// is cancelled first.
    func sleep(for duration: Duration) async throws
}

extension Duration {
    /// The duration in seconds, as the clocks' dates count them.
    var seconds: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

/// The wall clock.
public struct SystemServerClock: ServerClock {
    public init() {}
    public func now() -> Date { Date() }
    public func sleep(for duration: Duration) async throws { try await Task.sleep(for: duration) }
}

/// A clock that moves only when told to, for tests and simulations. A ``sleep(for:)`` returns
/// once ``advance(by:)`` has moved the clock past its end, never by itself.
public final class ManualServerClock: ServerClock {
    private struct Sleeper {
        let id: UInt64
        let until: Date
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct Watcher {
        let moreThan: Int
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var now: Date
        var sleepers: [Sleeper] = []
        var watchers: [Watcher] = []
        var nextID: UInt64 = 0

        /// The watchers whose count the sleepers now pass, taken off the list.
        mutating func watchersSatisfied() -> [Watcher] {
            let count = sleepers.count
            let satisfied = watchers.filter { count > $0.moreThan }
            watchers.removeAll { count > $0.moreThan }
            return satisfied
        }
    }

    private let state: NIOLockedValueBox<State>

    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        state = NIOLockedValueBox(State(now: start))
    }

    public func now() -> Date { state.withLockedValue { $0.now } }

    /// How many ``sleep(for:)`` calls are waiting for the clock to move (a test's way to know
    /// that the work it drives has started waiting).
    public var sleeping: Int { state.withLockedValue { $0.sleepers.count } }

    /// Returns once more than `count` ``sleep(for:)`` calls are waiting for the clock to move: a
    /// test awaits this to know that the work it drives has reached its wait, then advances the
    /// clock. Returns at once when that is already so.
    public func untilSleeping(moreThan count: Int = 0) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLockedValue { state -> Bool in
                if state.sleepers.count > count { return true }
                state.watchers.append(Watcher(moreThan: count, continuation: continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Moves the clock forward, and wakes every sleeper whose end it reaches.
    public func advance(by seconds: TimeInterval) {
        let due = state.withLockedValue { state -> [Sleeper] in
            state.now += seconds
            let now = state.now
            let due = state.sleepers.filter { $0.until <= now }
            state.sleepers.removeAll { $0.until <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    public func sleep(for duration: Duration) async throws {
        let id = state.withLockedValue { state -> UInt64 in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLockedValue { state in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    let until = state.now.addingTimeInterval(duration.seconds)
                    if until <= state.now { return .success(()) }
                    state.sleepers.append(Sleeper(id: id, until: until, continuation: continuation))
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
                for watcher in state.withLockedValue({ $0.watchersSatisfied() }) { watcher.continuation.resume() }
            }
        } onCancel: {
            let cancelled = state.withLockedValue { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }
}
