import Foundation
import HandoverClient
import PropertyBased
import Testing

/// The waits before a busy server is asked again: the server's `Retry-After` (RFC 9110
/// §10.2.3) plus "full jitter", a uniform random back-off under a ceiling that doubles up to a
/// maximum, within a budget for the whole call. Every generator here is seeded.
@Suite("Busy server policy")
struct BusyServerPolicyTests {
    /// The ceiling of the jitter after `attempt`, computed apart from the policy (in seconds, as
    /// a Double, whose exponent cannot overflow here).
    static func ceiling(_ policy: BusyServerPolicy, afterAttempt attempt: Int) -> Double {
        let initial = seconds(policy.initialBackoff), maximum = seconds(policy.maximumBackoff)
        return min(maximum, initial * pow(2, Double(min(max(1, attempt) - 1, 2_000))))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// A generator seeded from the case, so a failing case replays.
    static func generator(_ seed: UInt64) -> Xoshiro { Xoshiro(seed: (seed, seed ^ 0x9E37_79B9_7F4A_7C15, 7, 11)) }

    /// Checks one wait against `retryAfter + [0, ceiling]`, to the nanosecond the jitter is drawn in.
    static func expectBounded(_ wait: Duration?, _ policy: BusyServerPolicy, attempt: Int, retryAfter: Duration?,
                              sourceLocation: SourceLocation = #_sourceLocation) {
        guard let wait else {
            Issue.record("no wait after attempt \(attempt)", sourceLocation: sourceLocation)
            return
        }
        let asked = seconds(min(retryAfter ?? .zero, policy.maximumBackoff))
        let jitter = seconds(wait) - asked
        #expect(jitter >= -1e-9 && jitter <= ceiling(policy, afterAttempt: attempt) + 1e-9,
                "attempt \(attempt), Retry-After \(String(describing: retryAfter)): waits \(wait)", sourceLocation: sourceLocation)
    }

    @Test func theDefaultsAreHalfASecondDoublingToThirtyWithinFiveMinutes() {
        let policy = BusyServerPolicy()
        #expect(policy.initialBackoff == .milliseconds(500))
        #expect(policy.maximumBackoff == .seconds(30))
        #expect(policy.budget == .seconds(300))
    }

    /// Any attempt number, up to `Int.max`, and any server delay: the wait is the delay plus at
    /// most `min(maximum, initial · 2^(attempt − 1))`, and computing it never overflows.
    @Test func everyWaitIsTheServersDelayPlusAJitterUnderTheCeiling() async {
        let policy = BusyServerPolicy(budget: .seconds(1_000_000))
        let delays = Gen<Int>.int(in: 0...30).optional
        await propertyCheck(count: 500, input: Gen<Int>.int(in: 1...Int.max), delays, Gen<UInt64>.uint64()) { attempt, delay, seed in
            var generator = Self.generator(seed)
            let retryAfter = delay.map { Duration.seconds($0) }
            Self.expectBounded(policy.wait(afterAttempt: attempt, retryAfter: retryAfter, waitedSoFar: .zero, using: &generator),
                               policy, attempt: attempt, retryAfter: retryAfter)
        }
        await propertyCheck(count: 500, input: Gen<Int>.int(in: 1...80), delays, Gen<UInt64>.uint64()) { attempt, delay, seed in
            var generator = Self.generator(seed)
            let retryAfter = delay.map { Duration.seconds($0) }
            Self.expectBounded(policy.wait(afterAttempt: attempt, retryAfter: retryAfter, waitedSoFar: .zero, using: &generator),
                               policy, attempt: attempt, retryAfter: retryAfter)
        }
        var generator = Self.generator(64)
        for attempt in [Int.min, -1, 0, 1, 2, 6, 7, 8, 62, 63, 64, 65, 127, 128, 129, 1 << 32, Int.max - 1, Int.max] {
            Self.expectBounded(policy.wait(afterAttempt: attempt, retryAfter: nil, waitedSoFar: .zero, using: &generator),
                               policy, attempt: attempt, retryAfter: nil)
        }
    }

    /// Full jitter draws across the whole range, not near its top: 2,000 draws at the maximum
    /// ceiling reach below 1 s and above 29 s.
    @Test func theJitterSpansTheWholeRange() {
        let policy = BusyServerPolicy(budget: .seconds(100))
        var generator = Self.generator(2026)
        let waits = (0..<2_000).compactMap { _ in policy.wait(afterAttempt: 40, retryAfter: nil, waitedSoFar: .zero, using: &generator) }
        #expect(waits.count == 2_000)
        #expect(waits.min().map { $0 < .seconds(1) } == true && waits.max().map { $0 > .seconds(29) } == true, "\(String(describing: waits.min())) to \(String(describing: waits.max()))")
    }

    /// The same seed gives the same waits: the policy is a pure value.
    @Test func theSameGeneratorGivesTheSameWaits() {
        let policy = BusyServerPolicy()
        var first = Self.generator(5), second = Self.generator(5)
        let one = (1...20).map { policy.wait(afterAttempt: $0, retryAfter: .seconds(1), waitedSoFar: .zero, using: &first) }
        let other = (1...20).map { policy.wait(afterAttempt: $0, retryAfter: .seconds(1), waitedSoFar: .zero, using: &second) }
        #expect(one == other)
    }

    /// A server that asks for a day is asked again after at most the maximum (plus the jitter).
    @Test func aHugeRetryAfterIsCutToTheMaximum() {
        let policy = BusyServerPolicy(budget: .seconds(3_600))
        var generator = Self.generator(9)
        for asked in [Duration.seconds(86_400), .seconds(Int64.max), .seconds(31)] {
            let wait = policy.wait(afterAttempt: 1, retryAfter: asked, waitedSoFar: .zero, using: &generator)
            #expect(wait.map { $0 >= .seconds(30) && $0 <= .milliseconds(30_500) } == true, "\(asked): \(String(describing: wait))")
        }
    }

    /// A wait is given only while the waits so far and it fit in the budget; past it, nil. The
    /// same seed draws the same jitter with an unlimited budget, which says what the wait was.
    @Test func theBudgetEndsTheWaiting() async {
        let policy = BusyServerPolicy(budget: .seconds(300))
        let unlimited = BusyServerPolicy(budget: .seconds(1_000_000_000))
        await propertyCheck(count: 500, input: Gen<Int>.int(in: 1...20), Gen<Int>.int(in: 0...320_000), Gen<UInt64>.uint64()) { attempt, waitedMilliseconds, seed in
            let waited = Duration.milliseconds(waitedMilliseconds)
            var drawing = Self.generator(seed), checking = Self.generator(seed)
            guard let drawn = unlimited.wait(afterAttempt: attempt, retryAfter: .seconds(2), waitedSoFar: .zero, using: &drawing) else {
                Issue.record("no wait with an unlimited budget")
                return
            }
            let wait = policy.wait(afterAttempt: attempt, retryAfter: .seconds(2), waitedSoFar: waited, using: &checking)
            #expect(wait == (waited + drawn <= policy.budget ? drawn : nil), "waited \(waited), drawn \(drawn): \(String(describing: wait))")
        }
        var generator = Self.generator(1)
        #expect(policy.wait(afterAttempt: 1, retryAfter: nil, waitedSoFar: .seconds(301), using: &generator) == nil)
        #expect(policy.wait(afterAttempt: Int.max, retryAfter: .seconds(Int64.max), waitedSoFar: .seconds(Int64.max), using: &generator) == nil)
    }

    /// Out-of-range settings are read as the nearest sensible ones: no wait is ever negative, and
    /// the ceiling never stays at zero (a zero ceiling would ask again at once, for ever).
    @Test func outOfRangeSettingsAreClamped() {
        let policy = BusyServerPolicy(initialBackoff: .seconds(-5), maximumBackoff: .seconds(-1), budget: .seconds(-10))
        #expect(policy.initialBackoff == .milliseconds(1) && policy.maximumBackoff == .milliseconds(1) && policy.budget == .zero)
        var generator = Self.generator(3)
        let wait = BusyServerPolicy(budget: .seconds(10)).wait(afterAttempt: 1, retryAfter: .seconds(-4), waitedSoFar: .seconds(-3),
                                                               using: &generator)
        #expect(wait.map { $0 >= .zero && $0 <= .milliseconds(500) } == true, "\(String(describing: wait))")
    }
}
