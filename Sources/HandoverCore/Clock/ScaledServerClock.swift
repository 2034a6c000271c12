import Foundation

/// A server clock that runs a whole number of times faster than the wall clock, from the
/// moment it is made: for demonstrations (`handover demo`), where a 20 s deadline should pass in
/// 2 s while the scheduler, the database and HTTP all run for real.
public struct ScaledServerClock: ServerClock {
    /// How many times faster than the wall clock; 1 is the wall clock.
    public let speed: Int
    private let origin: Date

    /// - Parameter speed: at least 1 (smaller values are taken as 1).
    public init(speed: Int) {
        self.speed = max(1, speed)
        self.origin = Date()
    }

    public func now() -> Date {
        origin.addingTimeInterval(Date().timeIntervalSince(origin) * Double(speed))
    }

    /// Waits `duration` of this clock's time: a `speed`th of it on the wall clock.
    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration / speed)
    }
}
