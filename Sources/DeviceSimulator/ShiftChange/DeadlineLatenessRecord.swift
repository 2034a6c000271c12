import Foundation
import HandoverProtocol

/// The server's own record of how late deadlines fired: its `handover_deadline_lateness_seconds`
/// histogram (Prometheus text at `/metrics`), each deadline counted from its due time to the
/// commit of its reissue or timeout.
///
/// The launchers can only bound that from outside (they poll); this is exact to the histogram's
/// buckets. The bench reads it before and after the storm and keeps the difference
/// (``subtracting(_:)``), summed over the servers (``adding(_:)``).
public struct DeadlineLatenessRecord: Sendable, Codable, Equatable {
    /// A bucket of the histogram: how many deadlines fired at most `le` seconds late (cumulative).
    public struct Bucket: Sendable, Codable, Equatable {
        public var le: Double
        public var count: Int

        public init(le: Double, count: Int) {
            self.le = le
            self.count = count
        }
    }

    /// The finite buckets, in ascending `le`. (`+Inf` is ``fired``.)
    public var buckets: [Bucket]
    /// Deadlines fired.
    public var fired: Int
    /// Their lateness added up, in seconds.
    public var sumSeconds: Double

    public init(buckets: [Bucket], fired: Int, sumSeconds: Double) {
        self.buckets = buckets
        self.fired = fired
        self.sumSeconds = sumSeconds
    }

    /// Deadlines that fired within one second of their due time (the bucket `le="1.0"`), or nil
    /// when the histogram has no such bucket.
    public var withinOneSecond: Int? {
        buckets.first { $0.le == 1 }?.count
    }

    /// The smallest bucket bound that holds `share` of the deadlines (0.99: an upper bound of
    /// the p99), or nil when none fired or they lie beyond the last finite bucket.
    public func upperBound(of share: Double) -> Double? {
        guard fired > 0 else { return nil }
        let needed = (Double(fired) * share).rounded(.up)
        return buckets.first { Double($0.count) >= needed }?.le
    }

    /// The mean lateness in milliseconds, or nil when none fired.
    public var meanMilliseconds: Double? {
        fired > 0 ? sumSeconds / Double(fired) * 1000 : nil
    }

    /// What fired between `earlier` and this reading of the same server.
    public func subtracting(_ earlier: DeadlineLatenessRecord) -> DeadlineLatenessRecord {
        combined(with: earlier, sign: -1)
    }

    /// Two servers' records as one.
    public func adding(_ other: DeadlineLatenessRecord) -> DeadlineLatenessRecord {
        combined(with: other, sign: 1)
    }

    private func combined(with other: DeadlineLatenessRecord, sign: Int) -> DeadlineLatenessRecord {
        let counts = Dictionary(other.buckets.map { ($0.le, $0.count) }, uniquingKeysWith: { first, _ in first })
        return DeadlineLatenessRecord(
            buckets: buckets.map { Bucket(le: $0.le, count: $0.count + sign * (counts[$0.le] ?? 0)) },
            fired: fired + sign * other.fired, sumSeconds: sumSeconds + Double(sign) * other.sumSeconds)
    }

    /// Reads the histogram out of a Prometheus exposition text (version 0.0.4): its
    /// `_bucket{le="…"}`, `_count` and `_sum` lines; every other line is ignored. Nil when the
    /// text has no `_count` line for it (a server without this metric).
    public init?(exposition text: some StringProtocol) {
        let name = MetricName.deadlineLateness
        var buckets: [Bucket] = []
        var fired: Int?
        var sum = 0.0
        for line in text.split(whereSeparator: \.isNewline) {
            guard line.hasPrefix(name) else { continue }
            let rest = line.dropFirst(name.count)
            guard let space = rest.lastIndex(of: " ") else { continue }
            let series = rest[..<space], value = rest[rest.index(after: space)...]
            switch series {
            case "_count": fired = Int(value)
            case "_sum": sum = Double(value) ?? 0
            default:
                let prefix = #"_bucket{le=""#
                guard series.hasPrefix(prefix), series.hasSuffix(#""}"#) else { continue }
                let bound = series.dropFirst(prefix.count).dropLast(2)
                guard bound != "+Inf", let le = Double(bound), le.isFinite, let count = Int(value) else { continue }
                buckets.append(Bucket(le: le, count: count))
            }
        }
        guard let fired else { return nil }
        self.init(buckets: buckets.sorted { $0.le < $1.le }, fired: fired, sumSeconds: sum)
    }
}
