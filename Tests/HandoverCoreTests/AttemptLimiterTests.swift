import Foundation
@testable import HandoverCore
import PropertyBased
import Testing

/// The rate limits' sliding window without a database or a server (issue 65): at most `limit`
/// attempts a key counted within any window, a refused attempt not counted, and the wait it
/// names is when the oldest counted attempt leaves the window.
@Suite struct AttemptLimiterTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func theLimitHoldsPerKeyAndTheWaitIsWhenTheOldestLeaves() {
        let limiter = AttemptLimiter(limit: 3, window: 60)
        for second in [0.0, 10, 20] { #expect(limiter.attempt("10.0.0.1", now: Self.start.addingTimeInterval(second)) == nil) }
        #expect(limiter.attempt("10.0.0.1", now: Self.start.addingTimeInterval(30)) == 30, "the attempt at 0 s leaves at 60 s")
        #expect(limiter.attempt("10.0.0.2", now: Self.start.addingTimeInterval(30)) == nil, "another key has its own window")
        #expect(limiter.attempt("10.0.0.1", now: Self.start.addingTimeInterval(59.5)) == 1, "never less than a second")
        #expect(limiter.attempt("10.0.0.1", now: Self.start.addingTimeInterval(60)) == nil, "the refused ones did not count")
    }

    /// Over random attempt times: the attempts allowed never number more than the limit within
    /// any window, an attempt is refused only when the limit's worth were allowed in the window
    /// before it, and the wait it names lets the next attempt through.
    @Test func noWindowHoldsMoreThanTheLimit() async {
        await propertyCheck(count: 300, input: Gen.int(in: 0...400).array(of: 0...40), Gen.int(in: 1...5), Gen.int(in: 1...120)) { gaps, limit, window in
            let limiter = AttemptLimiter(limit: limit, window: TimeInterval(window))
            var now = Self.start, allowed: [Date] = []
            for gap in gaps {
                now = now.addingTimeInterval(TimeInterval(gap) / 10)
                let inWindow = allowed.filter { now.timeIntervalSince($0) < TimeInterval(window) }
                if let wait = limiter.attempt("key", now: now) {
                    #expect(inWindow.count >= limit, "refused with \(inWindow.count) of \(limit) in the window")
                    let leaves = inWindow.min()!.addingTimeInterval(TimeInterval(window))
                    #expect(now.addingTimeInterval(TimeInterval(wait)) >= leaves && wait >= 1, "wait \(wait) s")
                } else {
                    #expect(inWindow.count < limit)
                    allowed.append(now)
                }
            }
        }
    }
}
