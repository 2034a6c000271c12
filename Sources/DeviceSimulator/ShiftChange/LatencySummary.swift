import Foundation

/// Percentiles of a set of durations, in milliseconds (nearest-rank).
public struct LatencySummary: Sendable, Codable, Equatable {
    public var count: Int
    public var p50: Double
    public var p95: Double
    public var p99: Double
    public var max: Double

    public init(milliseconds samples: [Double]) {
        let sorted = samples.sorted()
        count = sorted.count
        func rank(_ fraction: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            let index = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
            return sorted[Swift.max(0, Swift.min(sorted.count - 1, index))]
        }
        p50 = rank(0.50)
        p95 = rank(0.95)
        p99 = rank(0.99)
        max = sorted.last ?? 0
    }

    /// `p50 3.1 ms, p99 12.0 ms, max 40.2 ms`.
    public var text: String {
        func format(_ value: Double) -> String { String(format: "%.1f", value) }
        return "p50 \(format(p50)) ms, p99 \(format(p99)) ms, max \(format(max)) ms"
    }
}
