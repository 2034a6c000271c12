@testable import HandoverCore
import PropertyBased
import Testing

/// Admission control on new work (run starts, check-outs): a window of the callbacks owed by the
/// runs started, cut when a standing queue shows (every write request of an interval waited longer
/// than the target, CoDel's signal), grown by calm intervals that turned starts away, open again
/// after calm ones that did not; a shed start gets a `Retry-After` of 1 to 30 s that grows with
/// what waits and shrinks with the rate of recording. All on explicit times: no clock, no sleeping.
@Suite struct AdmissionControlTests {
    static let target = Duration.milliseconds(200)
    static let interval = Duration.milliseconds(250)

    static func control() -> AdmissionControl {
        AdmissionControl(settings: .init(target: target), now: .zero)
    }

    /// Tries `count` starts at `now`, each answered at once with a run that owes `items`
    /// callbacks; how many were admitted.
    static func start(_ count: Int, items: Int = 7, _ control: inout AdmissionControl, at now: Duration) -> Int {
        (0..<count).filter { _ in
            guard control.admit(at: now) == .admit else { return false }
            control.answered()
            control.started(items: items)
            return true
        }.count
    }

    /// A standing queue in the interval that holds `now`.
    static func queue(_ control: inout AdmissionControl, at now: Duration) {
        control.observe(delay: .milliseconds(900), at: now)
    }

    @Test func withoutAQueueEverythingIsAdmitted() {
        var control = Self.control()
        for step in 0..<40 {
            let now = Self.interval * step
            // Requests answered well under the target, some above it (a burst): never a standing queue.
            control.observe(delay: .milliseconds(20), at: now)
            control.observe(delay: .milliseconds(900), at: now)
            #expect(Self.start(500, &control, at: now) == 500)
        }
        #expect(control.window == nil)
        #expect(control.owed == 40 * 500 * 7)
    }

    @Test func aStandingQueueCutsTheWindowToThreeQuartersOfWhatIsOwed() {
        var control = Self.control()
        #expect(Self.start(40, &control, at: .milliseconds(10)) == 40)   // 280 callbacks owed
        control.finished(items: 80, at: .milliseconds(100))                 // 200 owed
        Self.queue(&control, at: .milliseconds(200))
        // The next interval: the window is 150 (200 × 0.75); nothing more is admitted until
        // what is owed falls below it.
        #expect(Self.start(10, &control, at: .milliseconds(260)) == 0)
        #expect(control.window == 150)
        control.finished(items: 51, at: .milliseconds(270))                 // 149 owed
        #expect(Self.start(10, &control, at: .milliseconds(280)) == 1)     // 156 owed: full again
        #expect(control.owed == 156)
    }

    @Test func aStartAdmittedAndNotYetAnsweredCountsAsARunOfTheAverageSize() {
        var control = Self.control()
        #expect(Self.start(10, items: 4, &control, at: .zero) == 10)       // 40 owed; 4 a run
        Self.queue(&control, at: .milliseconds(10))
        #expect(Self.start(1, &control, at: .milliseconds(260)) == 0)      // window 30
        control.finished(items: 40, at: .milliseconds(300))
        // Nothing owed: starts are admitted until those not yet answered fill the window (8 × 4 ≥ 30).
        let admitted = (0..<20).filter { _ in control.admit(at: .milliseconds(310)) == .admit }.count
        #expect(admitted == 8)
        for _ in 0..<8 { control.answered() }
        #expect(control.starting == 0)
    }

    @Test func theWindowIsCutAtMostOnceASecond() {
        var control = Self.control()
        _ = Self.start(100, items: 10, &control, at: .zero)                   // 1,000 owed
        var windows: [Int?] = []
        for step in 0..<8 {
            Self.queue(&control, at: Self.interval * step)
            control.finished(items: 0, at: Self.interval * step + .milliseconds(1))
            windows.append(control.window)
        }
        // Cut at 250 ms (750), held through 1.25 s, cut again from 1,000 owed to 562 (750 × 0.75).
        #expect(windows == [nil, 750, 750, 750, 750, 562, 562, 562])
    }

    @Test func theWindowNeverFallsBelowOneCallback() {
        var control = Self.control()
        for step in 0..<200 {
            Self.queue(&control, at: Self.interval * step)
        }
        #expect(control.window == 1)
        // With nothing owed, one start at a time gets in.
        #expect(Self.start(10, &control, at: Self.interval * 200 + .milliseconds(1)) == 1)
    }

    @Test func calmIntervalsThatTurnStartsAwayGrowTheWindowAndCalmOnesThatDoNotOpenIt() {
        var control = Self.control()
        _ = Self.start(100, items: 10, &control, at: .zero)                   // 1,000 owed
        Self.queue(&control, at: .milliseconds(10))
        _ = control.admit(at: .milliseconds(260))
        #expect(control.window == 750)
        // Each calm interval in which a start was turned away adds an eighth.
        var now = Duration.milliseconds(260)
        var windows: [Int] = []
        for _ in 0..<3 {
            #expect(control.admit(at: now) != .admit)
            now += Self.interval
            control.observe(delay: .milliseconds(5), at: now)
            windows.append(control.window ?? 0)
        }
        #expect(windows == [843, 948, 1066])
        // Everything recorded and nobody turned away: open after forty calm intervals.
        control.finished(items: 1000, at: now)
        for step in 1...40 {
            #expect(control.window != nil)
            control.observe(delay: .milliseconds(5), at: now + Self.interval * step)
        }
        #expect(control.window == nil)
    }

    @Test func aLongQuietTimeReopensAdmissionAtOnce() {
        var control = Self.control()
        _ = Self.start(10, &control, at: .zero)
        Self.queue(&control, at: .milliseconds(10))
        _ = control.admit(at: .milliseconds(300))
        #expect(control.window == 52)
        #expect(Self.start(1000, &control, at: .seconds(3600)) == 1000)
        #expect(control.window == nil)
    }

    @Test func retryAfterIsTheTimeToRecordWhatWaitsAndStaysWithinOneToThirtySeconds() {
        var control = Self.control()
        _ = Self.start(100, items: 10, &control, at: .zero)                   // 1,000 owed
        control.finished(items: 100, at: .milliseconds(100))                 // 400 a second
        Self.queue(&control, at: .milliseconds(200))
        // Window 675. One start shed: 10 callbacks at 400 a second, 1 s.
        #expect(control.admit(at: .milliseconds(260)) == .shed(retryAfterSeconds: 1))
        // 200 shed: 2,000 callbacks at 400 a second, 5 s.
        var last = AdmissionControl.Decision.admit
        for _ in 0..<199 { last = control.admit(at: .milliseconds(270)) }
        #expect(last == .shed(retryAfterSeconds: 5))
        for _ in 0..<2000 { last = control.admit(at: .milliseconds(280)) }
        #expect(last == .shed(retryAfterSeconds: 30))
    }

    /// Whatever happens, in any order: a start is admitted only while what is owed is below the
    /// window, the window is never below one, nothing owed goes negative, and every `Retry-After`
    /// is 1 to 30 seconds.
    @Test func anySequenceKeepsTheWindowAndRetryAfterInBounds() async {
        let event = zip(Gen<Int>.int(in: 0...4), Gen<Int>.int(in: 0...400))
        await propertyCheck(count: 300, input: event.array(of: 1...300)) { events in
            var control = Self.control()
            var now = Duration.zero
            var unanswered = 0
            for (kind, amount) in events {
                switch kind {
                case 0: now += .milliseconds(amount)
                case 1: control.observe(delay: .milliseconds(amount * 3), at: now)
                case 2:
                    let before = control
                    switch control.admit(at: now) {
                    case .admit:
                        unanswered += 1
                        // Admitted only below the window of the intervals closed by then, or open
                        // (closing intervals moves the window, never what is owed).
                        if let window = control.window { #expect(before.outstanding < Double(window)) }
                    case .shed(let seconds):
                        #expect((1...30).contains(seconds))
                        #expect(control.window.map { control.outstanding >= Double($0) } == true)
                    }
                case 3:
                    if unanswered > 0 {
                        unanswered -= 1
                        control.answered()
                        control.started(items: amount % 12)
                    }
                default: control.finished(items: amount, at: now)
                }
                #expect(control.owed >= 0 && control.starting == unanswered)
                if let window = control.window { #expect(window >= 1) }
            }
        }
    }
}
