import Foundation
import NIOConcurrencyHelpers

/// Counts attempts per key in a sliding window, in memory (per instance); ``RateLimits`` holds
/// one per policy.
package final class AttemptLimiter: Sendable {
    package let limit: Int
    package let window: TimeInterval
    private let attempts = NIOLockedValueBox([String: [Date]]())

    package init(limit: Int, window: TimeInterval) {
        self.limit = limit
        self.window = window
    }

    /// Records an attempt for `key` at `now`; returns the seconds to wait when over the limit
    /// (the attempt is then not counted), or `nil` when it is allowed.
    package func attempt(_ key: String, now: Date) -> Int? {
        attempts.withLockedValue { table in
            if table.count > 50_000 { table = table.filter { $0.value.contains { now.timeIntervalSince($0) < window } } }
            var recent = (table[key] ?? []).filter { now.timeIntervalSince($0) < window }
            if recent.count >= limit, let oldest = recent.first {
                table[key] = recent
                return max(1, Int((window - now.timeIntervalSince(oldest)).rounded(.up)))
            }
            recent.append(now)
            table[key] = recent
            return nil
        }
    }
}
