import Foundation
@testable import HandoverCore
import PropertyBased
import Testing

/// Admission control on new work (run starts, check-outs): a window of the callbacks owed by the
/// runs started, cut when a standing queue shows (every write request of an interval waited longer
/// than the target, CoDel's signal), grown by calm intervals that turned starts away, open again
/// after calm ones that did not; a shed start gets a `Retry-After` of 1 to 30 s that grows with
/// what waits and shrinks with the rate of recording, and a turn: asked again at it, the start is
/// taken whatever the window. All on explicit times: no clock, no sleeping.
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
            guard control.admit(Self.newPhone(), at: now) == .admit else { return false }
            control.answered()
            control.started(items: items)
            return true
        }.count
    }

    /// A start's request path never asked before (a phone of its own).
    static func newPhone() -> String { "/api/v1/devices/\(UUID().uuidString.lowercased())/logout-runs" }

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
        let admitted = (0..<20).filter { _ in control.admit(Self.newPhone(), at: .milliseconds(310)) == .admit }.count
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
        _ = control.admit(Self.newPhone(), at: .milliseconds(260))
        #expect(control.window == 750)
        // Each calm interval in which a start was turned away adds an eighth.
        var now = Duration.milliseconds(260)
        var windows: [Int] = []
        for _ in 0..<3 {
            #expect(control.admit(Self.newPhone(), at: now) != .admit)
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
        _ = control.admit(Self.newPhone(), at: .milliseconds(300))
        #expect(control.window == 52)
        #expect(Self.start(1000, &control, at: .seconds(3600)) == 1000)
        #expect(control.window == nil)
    }

    @Test func retryAfterIsTheTimeToRecordWhatWaitsAndStaysWithinOneToThirtySeconds() {
        var control = Self.fullWindow()
        // One start shed: 10 callbacks at 400 a second after the last turn, 25 ms: 1 s.
        #expect(control.admit(Self.newPhone(), at: .milliseconds(510)) == .shed(retryAfterSeconds: 1))
        // 200 shed: 2,000 callbacks at 400 a second, 5 s.
        var last = AdmissionControl.Decision.admit
        for _ in 0..<199 { last = control.admit(Self.newPhone(), at: .milliseconds(520)) }
        #expect(last == .shed(retryAfterSeconds: 5))
        for _ in 0..<2000 { last = control.admit(Self.newPhone(), at: .milliseconds(530)) }
        #expect(last == .shed(retryAfterSeconds: 30))
    }

    @Test func beforeTheWindowHasBeenFullTurnsAreNotSpacedAndRetryAfterIsOneSecond() {
        var control = Self.control()
        _ = Self.start(100, items: 10, &control, at: .zero)
        Self.queue(&control, at: .milliseconds(200))
        // Nothing recorded while the window was full: no rate to space turns by (what was
        // recorded while it had room is what was asked, not what the server can do).
        var last = AdmissionControl.Decision.admit
        for index in 0..<500 { last = control.admit("/\(index)", at: .milliseconds(260)) }
        #expect(last == .shed(retryAfterSeconds: 1))
        #expect(control.turn(for: "/499") == .milliseconds(260))
    }

    /// 1,000 callbacks owed and a standing queue: the window is 750 from the interval closed at
    /// 250 ms. A start at 260 ms is shed, and the 100 callbacks recorded in that interval are the
    /// rate while the window is full (400 a second) from 500 ms; 800 are still owed, so the window
    /// is still full at 510 ms.
    static func fullWindow() -> AdmissionControl {
        var control = Self.control()
        _ = Self.start(100, items: 10, &control, at: .zero)
        Self.queue(&control, at: .milliseconds(200))
        _ = control.admit(Self.newPhone(), at: .milliseconds(260))
        control.finished(items: 100, at: .milliseconds(300))
        Self.queue(&control, at: .milliseconds(400))
        control.finished(items: 100, at: .milliseconds(505))
        return control
    }

    /// A standing queue in every interval from the third to the one that holds `end`: the window
    /// stays full (cut to one).
    static func keepQueue(_ control: inout AdmissionControl, until end: Duration) {
        var now = Self.interval * 2 + .milliseconds(10)
        while now <= end {
            Self.queue(&control, at: now)
            now += Self.interval
        }
    }

    @Test func aShedStartIsGivenATurnAndAskedAgainAtItIsTakenThoughTheWindowIsFull() throws {
        var control = Self.fullWindow()
        // Turns one run's recording apart (10 callbacks at 400 a second: 25 ms), in the order shed.
        #expect(control.admit("/a", at: .milliseconds(510)) == .shed(retryAfterSeconds: 1))
        #expect(control.admit("/b", at: .milliseconds(510)) == .shed(retryAfterSeconds: 1))
        #expect(control.turn(for: "/a") == .milliseconds(535))
        #expect(control.turn(for: "/b") == .milliseconds(560))
        let window = try #require(control.window)
        #expect(control.outstanding >= Double(window))
        // B, early, keeps its place; A, at its turn, is taken though the window is still full.
        #expect(control.admit("/b", at: .milliseconds(540)) == .shed(retryAfterSeconds: 1))
        #expect(control.turn(for: "/b") == .milliseconds(560))
        #expect(control.admit("/a", at: .milliseconds(540)) == .admit)
        // Waiting: B and the start shed at 260 ms (fullWindow).
        #expect(control.starting == 1 && control.turn(for: "/a") == nil && control.turnsWaiting == 2)
        // A start not shed before, asked at the same moment, is shed with the next turn.
        #expect(control.admit("/c", at: .milliseconds(540)) == .shed(retryAfterSeconds: 1))
        #expect(control.turn(for: "/c") == .milliseconds(585))
    }

    @Test func atItsTurnAStartIsTakenOnlyBelowTwoWindows() throws {
        var control = Self.fullWindow()
        _ = control.admit("/a", at: .milliseconds(510))
        control.started(items: 700)                                // 1,500 owed: two windows of 750
        let window = try #require(control.window)
        #expect(control.outstanding >= Double(window) * 2)
        #expect(control.admit("/a", at: .milliseconds(600)) == .shed(retryAfterSeconds: 1))
        #expect(control.turn(for: "/a") == .milliseconds(535))
        control.finished(items: 1, at: .milliseconds(610))
        #expect(control.admit("/a", at: .milliseconds(620)) == .admit)
    }

    @Test func aTurnFurtherThanThirtySecondsIsToldThirtyAndKept() {
        var control = Self.fullWindow()
        for index in 0..<2000 { _ = control.admit("/\(index)", at: .milliseconds(510)) }
        #expect(control.turnsWaiting == 2001)
        // The last turn: 2,000 runs of 25 ms after the one given at 260 ms (at once: no rate yet),
        // counted from 510 ms.
        #expect(control.turn(for: "/1999") == .milliseconds(50_510))
        #expect(control.admit("/1999", at: .milliseconds(520)) == .shed(retryAfterSeconds: 30))
        Self.keepQueue(&control, until: .seconds(30))
        #expect(control.admit("/1999", at: .seconds(30)) == .shed(retryAfterSeconds: 21))
        #expect(control.turn(for: "/1999") == .milliseconds(50_510) && control.turnsWaiting == 2001)
    }

    /// Turns follow one another in the order shed, though starts let in early (while the window
    /// had room) leave gaps: a turn is never moved ahead of one given before it. (Giving turns no
    /// further than the turns still waiting would take let phones shed later pass those shed
    /// earlier: at four times the knee, 2,922 phones gave up after 300 s of waiting, against 912.)
    @Test func turnsKeepTheOrderShedThoughStartsLetInEarlyLeaveGaps() {
        var control = Self.fullWindow()
        for index in 0..<100 { _ = control.admit("/\(index)", at: .milliseconds(510)) }
        #expect(control.turn(for: "/99") == .milliseconds(3010))
        // Nothing owed: 75 of them, asked again early, are taken while the window has room (75
        // starts not yet answered, of 10 callbacks each, fill the 750); the 76th keeps its place.
        control.finished(items: 800, at: .milliseconds(520))
        for index in 0..<75 { #expect(control.admit("/\(index)", at: .milliseconds(530)) == .admit) }
        #expect(control.admit("/75", at: .milliseconds(530)) == .shed(retryAfterSeconds: 2))   // 2,410 ms
        // A start shed now comes after the last turn given.
        #expect(control.admit("/new", at: .milliseconds(540)) == .shed(retryAfterSeconds: 3))
        #expect(control.turn(for: "/new") == .milliseconds(3035))
    }

    @Test func aStartAskedAgainEarlyWithRoomInTheWindowIsTakenAndItsTurnDropped() {
        var control = Self.fullWindow()
        _ = control.admit("/a", at: .milliseconds(510))
        control.finished(items: 800, at: .milliseconds(520))       // nothing owed
        #expect(control.admit("/a", at: .milliseconds(525)) == .admit)
        #expect(control.turn(for: "/a") == nil)
    }

    @Test func aTurnNotTakenIsForgottenAndTheStartQueuesAgain() {
        var control = Self.fullWindow()
        _ = control.admit("/a", at: .milliseconds(510))
        // A standing queue in every interval until a minute after its turn: the window stays full
        // (cut to one), and the turn is forgotten (turns are looked over every 5 s).
        Self.keepQueue(&control, until: .milliseconds(66_300))
        #expect(control.window == 1)
        #expect(control.turnsWaiting == 0)
        #expect(control.admit("/a", at: .milliseconds(66_300)) != .admit)
        #expect(control.turn(for: "/a") != nil)
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
                    let work = "/\(amount % 5)"
                    let turn = control.turn(for: work)
                    switch control.admit(work, at: now) {
                    case .admit:
                        unanswered += 1
                        // Admitted only below the window of the intervals closed by then, or open
                        // (closing intervals moves the window, never what is owed), or at its turn.
                        if let window = control.window {
                            let allowance = turn.map { now >= $0 } == true ? 2.0 : 1.0
                            #expect(before.outstanding < Double(window) * allowance)
                        }
                        #expect(control.turn(for: work) == nil)
                    case .shed(let seconds):
                        #expect((1...30).contains(seconds))
                        if let turn { #expect(control.turn(for: work) == turn) }
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
