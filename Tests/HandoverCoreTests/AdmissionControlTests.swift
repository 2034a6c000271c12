@testable import HandoverCore
import PropertyBased
import Testing

/// Admission control on new work (run starts, check-outs): a standing queue (every write request
/// of a window waited longer than the target, CoDel's signal) cuts the starts admitted per window;
/// calm windows grow them back until admission is open; a shed start gets a `Retry-After` of
/// 1 to 30 s that grows with what is waiting. All on explicit times: no clock, no sleeping.
@Suite struct AdmissionControlTests {
    static let target = Duration.milliseconds(200)
    static let window = Duration.milliseconds(250)

    static func control() -> AdmissionControl {
        AdmissionControl(settings: .init(target: target), now: .zero)
    }

    /// Admits `count` starts at `now`; how many were admitted.
    static func admitted(_ count: Int, _ control: inout AdmissionControl, at now: Duration) -> Int {
        (0..<count).filter { _ in control.admit(at: now) == .admit }.count
    }

    @Test func withoutAQueueEverythingIsAdmitted() {
        var control = Self.control()
        for step in 0..<40 {
            let now = Self.window * step
            // Requests answered well under the target, some above it (a burst): never a standing queue.
            control.observe(delay: .milliseconds(20), at: now)
            control.observe(delay: .milliseconds(900), at: now)
            #expect(Self.admitted(500, &control, at: now) == 500)
        }
        #expect(control.budget == nil)
    }

    @Test func aStandingQueueCutsTheStartsToThreeQuartersOfWhatWasAdmitted() {
        var control = Self.control()
        #expect(Self.admitted(40, &control, at: .milliseconds(10)) == 40)
        control.observe(delay: .milliseconds(300), at: .milliseconds(100))
        control.observe(delay: .milliseconds(450), at: .milliseconds(200))
        // The next window: 30 admitted (40 × 0.75), the rest shed.
        #expect(Self.admitted(100, &control, at: .milliseconds(260)) == 30)
        #expect(control.budget == 30)
        // Still congested: 30 × 0.75.
        control.observe(delay: .milliseconds(250), at: .milliseconds(300))
        #expect(Self.admitted(100, &control, at: .milliseconds(510)) == 22)
    }

    @Test func theBudgetNeverFallsBelowOneStartAWindow() {
        var control = Self.control()
        for step in 0..<50 {
            control.observe(delay: .seconds(3), at: Self.window * step)
        }
        #expect(control.budget == 1)
        #expect(Self.admitted(10, &control, at: Self.window * 50 + .milliseconds(1)) == 1)
    }

    @Test func calmWindowsGrowTheBudgetBackUntilAdmissionIsOpen() {
        var control = Self.control()
        control.observe(delay: .seconds(1), at: .milliseconds(10))
        _ = Self.admitted(1, &control, at: .milliseconds(260))
        #expect(control.budget == 1)
        // Each calm window adds an eighth (at least one): 2, 3, 4, 5 …
        var now = Duration.milliseconds(260)
        var budgets: [Int] = []
        while control.budget != nil, budgets.count < 200 {
            now += Self.window
            control.observe(delay: .milliseconds(5), at: now)
            budgets.append(control.budget ?? 0)
        }
        #expect(control.budget == nil)
        #expect(budgets.prefix(4) == [2, 3, 4, 5])
        // Geometric once above 8: open (past 1,024 a window) within a minute of calm.
        #expect(budgets.count < 240, "\(budgets.count) windows")
        #expect(zip(budgets.dropLast(), budgets.dropFirst()).allSatisfy { $0 < $1 || $1 == 0 })
    }

    @Test func aLongQuietTimeReopensAdmissionAtOnce() {
        var control = Self.control()
        control.observe(delay: .seconds(2), at: .milliseconds(10))
        _ = control.admit(at: .milliseconds(300))
        #expect(control.budget == 1)
        #expect(Self.admitted(1000, &control, at: .seconds(3600)) == 1000)
        #expect(control.budget == nil)
    }

    @Test func retryAfterGrowsWithWhatWaitsAndStaysWithinOneToThirtySeconds() {
        var control = Self.control()
        control.observe(delay: .seconds(1), at: .milliseconds(10))
        _ = Self.admitted(4, &control, at: .milliseconds(20))
        // Budget 3 a window (12 a second). The first shed: one start waiting, 1 s.
        #expect(Self.admitted(3, &control, at: .milliseconds(260)) == 3)
        #expect(control.admit(at: .milliseconds(260)) == .shed(retryAfterSeconds: 1))
        // 200 shed: 200 / 3 windows of 250 ms is about 17 s.
        var last = AdmissionControl.Decision.admit
        for _ in 0..<199 { last = control.admit(at: .milliseconds(270)) }
        #expect(last == .shed(retryAfterSeconds: 17))
        for _ in 0..<2000 { last = control.admit(at: .milliseconds(280)) }
        #expect(last == .shed(retryAfterSeconds: 30))
    }

    /// Whatever happens, in any order: a window never admits more than its budget, the budget
    /// is never below one, and every `Retry-After` is 1 to 30 seconds.
    @Test func anySequenceKeepsTheBudgetAndRetryAfterInBounds() async {
        let event = zip(Gen<Int>.int(in: 0...2), Gen<Int>.int(in: 0...400))
        await propertyCheck(count: 300, input: event.array(of: 1...300)) { events in
            var control = Self.control()
            var now = Duration.zero
            var admittedThisWindow = 0
            var windowIndex = 0
            for (kind, amount) in events {
                if kind == 0 { now += .milliseconds(amount) }  // time passes
                // The control's windows start at zero and last 250 ms: count this one's starts.
                let index = Int(now / Self.window)
                if index != windowIndex { (windowIndex, admittedThisWindow) = (index, 0) }
                switch kind {
                case 0: break
                case 1: control.observe(delay: .milliseconds(amount * 3), at: now)
                default:
                    switch control.admit(at: now) {
                    case .admit:
                        admittedThisWindow += 1
                        // The budget holds for the whole window it was set for.
                        if let budget = control.budget { #expect(admittedThisWindow <= budget) }
                    case .shed(let seconds):
                        #expect((1...30).contains(seconds))
                        #expect(control.budget.map { admittedThisWindow >= $0 } == true)
                    }
                }
                if let budget = control.budget { #expect(budget >= 1 && budget <= 1024) }
            }
        }
    }
}
