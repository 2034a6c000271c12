import Foundation
import NIOConcurrencyHelpers

/// What the storm's launchers saw, gathered under one lock while they run.
final class StormTally: Sendable {
    /// A callback the server acknowledged: the item and the state it must end in.
    struct Acknowledged: Sendable {
        var run: UUID
        var item: UUID
        var succeeded: Bool
    }

    /// A phone its launcher checked out to a person: the custody its run must check in.
    struct CheckedOut: Sendable {
        var device: UUID
        var badge: String
        /// The run the launcher started after the check-out; nil when the server refused it.
        var run: UUID?
    }

    struct Counts: Sendable {
        var runsStarted = 0
        var runsRefused = 0
        var callbacksAcknowledged = 0
        var callbacksRefused = 0
        var viaBrowser = 0
        var duplicatesRefused = 0
        var duplicatesAccepted = 0
        var transportErrors = 0
        var deadlinesFired = 0
        var deadlinesMissed = 0
        /// Apps of the started runs that ignore their first link: the deadlines the storm calls for.
        var stallsPlayed = 0
        /// Runs started only after the server shed them (503 + Retry-After) at least once.
        var startsRetried = 0
        /// Tries sent again after a 503 with `Retry-After` (run starts and check-outs).
        var busyRetries = 0
        var devicesDone = 0
        var checkOutsDone = 0
        var checkOutsRefused = 0
        /// Each answered check-out's round trip.
        var checkOutMilliseconds: [Double] = []
        var checkedOut: [CheckedOut] = []
        /// The phones checked out before the window, by device: each run started takes its own.
        var checkedOutBefore: [UUID: CheckedOut] = [:]
        var firstCallback: ContinuousClock.Instant?
        var lastCallback: ContinuousClock.Instant?
        var callbackMilliseconds: [Double] = []
        var runStartMilliseconds: [Double] = []
        var latenessMilliseconds: [Double] = []
        var acknowledged: [Acknowledged] = []
        var runs: [(run: UUID, key: String, base: Int)] = []
        var refusals: [String: Int] = [:]
    }

    private let box = NIOLockedValueBox(Counts())

    func update(_ change: (inout Counts) -> Void) { box.withLockedValue(change) }

    func read<T>(_ body: (Counts) -> T) -> T { box.withLockedValue { body($0) } }

    func callback(_ milliseconds: Double, acknowledged: Acknowledged?, browser: Bool, refusal: String? = nil) {
        let now = ContinuousClock.now
        box.withLockedValue {
            $0.callbackMilliseconds.append(milliseconds)
            if $0.firstCallback == nil { $0.firstCallback = now }
            $0.lastCallback = now
            if browser { $0.viaBrowser += 1 }
            if let acknowledged {
                $0.callbacksAcknowledged += 1
                $0.acknowledged.append(acknowledged)
            } else {
                $0.callbacksRefused += 1
                if let refusal { $0.refusals[refusal, default: 0] += 1 }
            }
        }
    }
}
