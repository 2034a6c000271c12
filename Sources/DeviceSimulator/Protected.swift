import Foundation

/// A value guarded by a lock, for the few places that must answer synchronously
/// (`handle(_:)` returns `Bool` to UIKit at once, so it cannot hop onto an actor).
final class Protected<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
