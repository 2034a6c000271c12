import Foundation
import NIOConcurrencyHelpers

/// A clock that moves only when told to, shared by the test server and the code under test so that
/// tests make time pass without sleeping.
public final class ManualClock: Sendable {
    private let current: NIOLockedValueBox<Date>

    /// Starts at `start` (a fixed instant by default, so runs are reproducible).
    public init(start: Date = Date(timeIntervalSince1970: 1_750_000_000)) {
        current = NIOLockedValueBox(start)
    }

    /// The current instant.
    public var now: Date { current.withLockedValue { $0 } }

    /// Moves the clock forward by `seconds`.
    public func advance(by seconds: TimeInterval) {
        current.withLockedValue { $0 = $0.addingTimeInterval(seconds) }
    }

    /// A `now` closure to hand to the components under test.
    public var read: @Sendable () -> Date { { [self] in now } }
}
