/// Admission control for new work: whether this instance takes one more run start (or check-out)
/// now, or sheds it with `503 Service Unavailable` and a `Retry-After`, so that past its capacity
/// the server keeps recording at its capacity instead of collapsing.
///
/// **Why run starts.** A run start is the work that brings more work: each one is followed by a
/// callback per app (seven in a hospital's shift change) within seconds. Admitted past what the
/// writer can record, they queue callbacks for seconds, deadlines fire for apps that did answer,
/// reissues add writes, and launchers time out and abandon runs: the server does less the more it
/// is offered. Callbacks and reads are never shed: they finish work already admitted.
///
/// **A window of work owed, as TCP's congestion window.** The control counts the callbacks this
/// instance is owed: each run it started adds its apps that answer by link (``started(items:)``),
/// each callback recorded and each deadline that timed an app out takes one away
/// (``finished(items:)``), and each start admitted and not yet answered counts as a run of the
/// average size. A start is admitted while what is owed is below the ``window``. The signal leads:
/// a start counts at once for all the callbacks it will bring, so a storm's first second cannot
/// let in more than the window, and as callbacks are recorded the window admits the next starts
/// at the rate the server records (the work clocks itself in).
///
/// **The window follows a standing queue** (CoDel's signal: Nichols and Jacobson, "Controlling
/// Queue Delay", ACM Queue 10(5), 2012): the *smallest* delay of the write requests (callbacks,
/// run starts, check-outs) answered in an interval. A burst makes some requests wait and drains; a
/// queue that does not drain makes every request of the interval wait, the fastest included.
/// When an interval's smallest delay is above ``Settings/target``, the window is cut to
/// ``Settings/decrease`` of what is owed (or of the window, if smaller), at most once per
/// ``Settings/cutSpacing``, since the work owed at a cut is recorded only over the next second.
/// An interval without a standing queue in which the window turned a start away grows it by
/// ``Settings/increase``; ``Settings/openAfter`` intervals in a row without a queue and without
/// turning anyone away open admission again (no window).
///
/// **Turns, as a queue the server keeps but does not hold** (`Retry-After`). A start shed by the
/// window is given a turn: the time by which the server, at the rate it records while the window
/// is full, will have recorded the runs of the starts given turns before it (a run of the average
/// size after the last turn given). `Retry-After` is the time to that turn (1 to
/// ``Settings/longestRetryAfter`` seconds). A start asked again for the same work (the same
/// request path: the same device's run start or check-out) at or after its turn is admitted
/// ahead of new starts, while what is owed is below ``Settings/turnAllowance`` windows; one asked
/// again before it while the window is full (or at it, past that) is told the time left (at least
/// a second) and keeps its place.
/// So a phone shed in a storm is asked back about once (once more for each
/// ``Settings/longestRetryAfter`` it waits) and comes in about in the order it came, where a
/// `Retry-After` of the time to record only the starts shed lately brought everyone back within
/// seconds to be shed again, tens of times each. A turn not taken within ``Settings/turnKept``
/// of its time is forgotten; past ``Settings/mostTurns`` waiting, a shed start is told its place
/// without being given a turn. The SDK adds its own jitter (`BusyServerPolicy`).
///
/// A pure value: the server feeds it times (on its clock), delays and counts, and does what
/// ``admit(_:at:)`` answers (``AdmissionGate``). Each instance keeps its own; with several
/// instances behind one balancer, each counts the runs it started and the callbacks it
/// recorded, which balance out across them.
///
/// ```swift
/// var admission = AdmissionControl(settings: .init(target: .milliseconds(200)), now: .zero)
/// admission.admit("/api/v1/devices/a/logout-runs", at: .zero)  // .admit: admission is open
/// admission.answered()
/// admission.started(items: 7)                                  // its run owes 7 callbacks
/// admission.observe(delay: .milliseconds(900), at: .milliseconds(10))
/// admission.admit("/api/v1/devices/b/logout-runs", at: .milliseconds(300))
/// // a standing queue: the window is 5 (7 × 0.75); shed, with a turn at 300 ms + one run's recording
/// admission.finished(items: 7, at: .milliseconds(320))
/// admission.admit("/api/v1/devices/b/logout-runs", at: .milliseconds(330))   // nothing owed: admitted
/// ```
package struct AdmissionControl: Sendable, Equatable {
    /// How the control reacts.
    package struct Settings: Sendable, Equatable {
        /// The standing queue delay above which the window is cut (the server's default is
        /// 200 ms: far below an app's deadline of seconds).
        package var target: Duration
        /// The length of an interval (250 ms).
        package var interval: Duration = .milliseconds(250)
        /// A cut sets the window to this share of what is owed (0.75).
        package var decrease: Double = 0.75
        /// The shortest time between two cuts (1 s): the callbacks owed at a cut are recorded
        /// over the next second, and cutting again before then would cut for the same queue.
        package var cutSpacing: Duration = .seconds(1)
        /// An interval without a queue in which the window turned a start away grows it by this
        /// share (0.125, at least one callback): about twice as wide after 1.5 s of calm.
        package var increase: Double = 0.125
        /// Intervals in a row without a queue and without a start turned away after which
        /// admission is open again (40: ten seconds).
        package var openAfter: Int = 40
        /// The longest `Retry-After`, in seconds (30): the longest the SDK honours as sent. A
        /// start whose turn is further away is told this, and keeps its turn.
        package var longestRetryAfter: Int = 30
        /// How long after its time a turn not taken is kept (60 s: past the SDK's longest
        /// back-off, 30 s, after the longest `Retry-After`).
        package var turnKept: Duration = .seconds(60)
        /// The most turns kept at once (200,000); past it, a shed start is told its place without
        /// being given a turn.
        package var mostTurns: Int = 200_000
        /// A start at its turn is taken while what is owed is below this many windows (2): ahead
        /// of new starts, which need room below one window, but not without bound (turns are
        /// spaced by a measured rate, and a queue of seconds would fire the apps' deadlines).
        package var turnAllowance: Double = 2

        package init(target: Duration) {
            self.target = target
        }
    }

    /// What to do with one piece of new work.
    package enum Decision: Sendable, Equatable {
        /// Take it; call ``answered()`` when it has been answered.
        case admit
        /// Answer `503` with `Retry-After: seconds`.
        case shed(retryAfterSeconds: Int)
    }

    package let settings: Settings
    /// The most callbacks owed that still admits a start; nil while admission is open.
    package private(set) var window: Int?
    /// The callbacks owed by the runs this instance started: not yet recorded, not timed out.
    package private(set) var owed = 0
    /// Starts (and check-outs) admitted and not yet answered.
    package private(set) var starting = 0
    /// Callbacks a run owes on average (each run started moves it a tenth of the way).
    private var itemsPerStart: Double?
    /// Callbacks recorded or timed out a second in the intervals in which the window turned a
    /// start away (on average over the last of them): the rate of recording at the server's
    /// capacity. Nil until the window has been full.
    private var fullRate: Double?
    private var intervalStart: Duration
    /// The smallest delay observed in the current interval.
    private var smallestDelay: Duration?
    private var finishedThisInterval = 0
    /// Starts the window turned away in the current interval (asked back before their turn: not
    /// counted).
    private var shed = 0
    private var calmIntervals = 0
    private var lastCut: Duration?
    /// The turns given to shed starts and not yet taken, by the work asked for (a request path).
    private var turns: [String: Duration] = [:]
    /// The time of the last turn given (whether kept or only told).
    private var lastTurn: Duration?
    /// When turns long past are next forgotten.
    private var nextSweep: Duration
    /// How often turns long past are looked for.
    private static let sweepEvery = Duration.seconds(5)

    package init(settings: Settings, now: Duration) {
        self.settings = settings
        self.intervalStart = now
        self.nextSweep = now + Self.sweepEvery
    }

    /// What is owed, counting each start not yet answered as a run of the average size.
    package var outstanding: Double {
        Double(owed) + Double(starting) * (itemsPerStart ?? 1)
    }

    /// A write request (callback, run start, check-out) was answered `delay` after it arrived.
    package mutating func observe(delay: Duration, at now: Duration) {
        roll(to: now)
        smallestDelay = min(smallestDelay ?? delay, delay)
    }

    /// Whether to take one more start now. An admitted start counts as owed work until
    /// ``answered()``.
    ///
    /// - Parameters:
    ///   - work: what the start asks for, the same each time it is asked again (the server passes
    ///     the request's path: the device and whether a run start or a check-out).
    ///   - now: the time, on the control's time line.
    package mutating func admit(_ work: String, at now: Duration) -> Decision {
        roll(to: now)
        let turn = turns[work]
        if let turn, now >= turn, window.map({ outstanding < Double($0) * settings.turnAllowance }) ?? true {
            turns[work] = nil
            starting += 1
            return .admit
        }
        if let window, outstanding >= Double(window) {
            // Asked again before its turn (or at it, past the turns' allowance): told the time
            // left (at least a second), and keeps its place.
            if let turn { return .shed(retryAfterSeconds: retryAfterSeconds(until: turn, from: now)) }
            shed += 1
            let given = max(lastTurn ?? now, now) + spacing
            lastTurn = given
            if turns.count < settings.mostTurns { turns[work] = given }
            return .shed(retryAfterSeconds: retryAfterSeconds(until: given, from: now))
        }
        if turn != nil { turns[work] = nil }
        starting += 1
        return .admit
    }

    /// Turns given and not yet taken or forgotten.
    package var turnsWaiting: Int { turns.count }

    /// The turn given to `work`, if one is waiting.
    package func turn(for work: String) -> Duration? { turns[work] }

    /// An admitted start (or check-out) was answered, whatever the answer.
    package mutating func answered() {
        starting = max(0, starting - 1)
    }

    /// A run started that owes `items` callbacks (its apps that answer by link).
    package mutating func started(items: Int) {
        owed += max(0, items)
        itemsPerStart = itemsPerStart.map { $0 * 0.9 + Double(items) * 0.1 } ?? Double(items)
    }

    /// `items` callbacks were recorded, or apps timed out.
    package mutating func finished(items: Int, at now: Duration) {
        roll(to: now)
        owed = max(0, owed - items)
        finishedThisInterval += max(0, items)
    }

    /// The time between two turns: the server's time to record a run of the average size at the
    /// rate it records while the window is full; none before it has been (what it recorded while
    /// it had room says what was asked of it, not what it can do).
    private var spacing: Duration {
        guard let fullRate else { return .zero }
        let seconds = max(1, itemsPerStart ?? 1) / max(1, fullRate)
        return .nanoseconds(Int64((min(seconds, Double(settings.longestRetryAfter)) * 1e9).rounded(.up)))
    }

    /// Whole seconds from `now` to `turn`, rounded up, within 1 to ``Settings/longestRetryAfter``.
    private func retryAfterSeconds(until turn: Duration, from now: Duration) -> Int {
        let seconds = Self.seconds(turn - now).rounded(.up)
        return Int(min(Double(settings.longestRetryAfter), max(1, seconds)))
    }

    /// Closes every interval that ended by `now`.
    private mutating func roll(to now: Duration) {
        let interval = max(settings.interval, .milliseconds(1))
        var closed = 0
        while now >= intervalStart + interval {
            // A long quiet time: every interval in it was calm, and admission is open again.
            if closed > settings.openAfter {
                window = nil
                calmIntervals = 0
                let passed = Self.seconds(now - intervalStart) / Self.seconds(interval)
                intervalStart += interval * Int(passed.rounded(.down))
                break
            }
            closeInterval(endingAt: intervalStart + interval)
            intervalStart += interval
            closed += 1
        }
    }

    private mutating func closeInterval(endingAt end: Duration) {
        let recorded = Double(finishedThisInterval) / Self.seconds(settings.interval)
        if shed > 0 { fullRate = fullRate.map { $0 * 0.5 + recorded * 0.5 } ?? recorded }
        if let smallestDelay, smallestDelay > settings.target {
            calmIntervals = 0
            if lastCut.map({ end - $0 >= settings.cutSpacing }) ?? true {
                let base = min(Double(window ?? Int.max), outstanding)
                window = max(1, Int(base * settings.decrease))
                lastCut = end
            }
        } else if let current = window {
            if shed > 0 {
                calmIntervals = 0
                window = current + max(1, Int(Double(current) * settings.increase))
            } else {
                calmIntervals += 1
                if calmIntervals >= settings.openAfter { (window, calmIntervals) = (nil, 0) }
            }
        }
        (shed, finishedThisInterval, smallestDelay) = (0, 0, nil)
        if end >= nextSweep {
            if !turns.isEmpty { turns = turns.filter { end < $0.value + settings.turnKept } }
            nextSweep = end + Self.sweepEvery
        }
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
