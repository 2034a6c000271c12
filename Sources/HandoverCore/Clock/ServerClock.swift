import Foundation
import NIOConcurrencyHelpers

/// The server's sense of "now". Deadlines and webhook back-off read it, so tests can move time
/// forward without sleeping.
public protocol ServerClock: Sendable {
    func now() -> Date
}

/// The wall clock.
public struct SystemServerClock: ServerClock {
    public init() {}
    public func now() -> Date { Date() }
}

/// A clock that moves only when told to, for tests and simulations.
public final class ManualServerClock: ServerClock {
    private let current: NIOLockedValueBox<Date>

    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        current = NIOLockedValueBox(start)
    }

    public func now() -> Date { current.withLockedValue { $0 } }

    /// Moves the clock forward.
    public func advance(by seconds: TimeInterval) {
        current.withLockedValue { $0 += seconds }
    }
}
