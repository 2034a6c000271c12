/// Admission control for new work: whether this instance takes one more run start (or check-out)
/// now, or sheds it with `503 Service Unavailable` and a `Retry-After`, so that past its capacity
/// the server keeps recording what it admitted instead of collapsing.
///
/// **Why run starts.** A run start is the work that brings more work: each one is followed by a
/// callback per app (seven in a hospital's shift change) within seconds. Admitted past what the
/// writer can record, they queue callbacks for seconds, deadlines fire for apps that did answer,
/// reissues add writes, and launchers time out and abandon runs: the server does less the more it
/// is offered. Callbacks and reads are never shed: they finish work already admitted.
///
/// **The signal is a standing queue** (CoDel's: Nichols and Jacobson, "Controlling Queue Delay",
/// ACM Queue 10(5), 2012): the *smallest* delay of the write requests (callbacks, run starts,
/// check-outs) answered in a window. A burst makes some requests wait and drains; a queue that
/// does not drain makes every request of the window wait, the fastest included. When a window's
/// smallest delay is above ``Settings/target``, the budget of starts per window is cut to
/// ``Settings/decrease`` of what was admitted; each window without a standing queue adds
/// ``Settings/increase`` of the budget (at least one), and past ``Settings/openAbove`` admission
/// is open again (no budget).
///
/// It reacts at every window, so it errs on the side of shedding: a start's callbacks come over
/// the next second or two, so the queue a cut drains shows that much later, and the cuts made
/// until then leave the writer short of work (on a 2-core machine, past the knee it records about
/// 0.5 to 0.6 of the closed loop's rate). Variants that cut less (once a second, or to the rate the
/// server recorded, or a window of callbacks in flight) recorded more at the knee, but let a storm
/// of twice or four times the capacity in before they reacted, and collapsed
/// (`docs/operations.md`, "Past the knee").
///
/// **`Retry-After`** is how long the starts shed lately need to be admitted at the current budget
/// (between 1 and ``Settings/longestRetryAfter`` seconds), so that launchers shed together come
/// back spread over the time the server needs for them. The SDK adds its own jitter
/// (`BusyServerPolicy`).
///
/// A pure value: the middleware feeds it times (`now`, on the server's clock) and delays, and
/// does what ``admit(at:)`` answers. Each instance keeps its own.
///
/// ```swift
/// var admission = AdmissionControl(settings: .init(target: .milliseconds(200)), now: .zero)
/// admission.observe(delay: .milliseconds(900), at: .milliseconds(10))
/// admission.admit(at: .milliseconds(300))   // the first window had a standing queue: budget 1
/// ```
package struct AdmissionControl: Sendable, Equatable {
    /// How the control reacts.
    package struct Settings: Sendable, Equatable {
        /// The standing queue delay above which new work is shed (the server's default is 200 ms:
        /// far below an app's deadline of seconds, about what a write waits at capacity on a
        /// 2-core machine with its load generator).
        package var target: Duration
        /// The length of a window (250 ms).
        package var window: Duration = .milliseconds(250)
        /// A congested window cuts the budget to this share of what it admitted (0.75).
        package var decrease: Double = 0.75
        /// A window without a standing queue adds this share of the budget (0.125, at least one
        /// start), so the budget doubles in about 1.5 s of calm.
        package var increase: Double = 0.125
        /// A budget above this many starts a window opens admission again (1,024: about 4,000
        /// starts a second, beyond any instance's writer).
        package var openAbove: Int = 1024
        /// The longest `Retry-After`, in seconds (30).
        package var longestRetryAfter: Int = 30

        package init(target: Duration) {
            self.target = target
        }
    }

    /// What to do with one piece of new work.
    package enum Decision: Sendable, Equatable {
        /// Take it.
        case admit
        /// Answer `503` with `Retry-After: seconds`.
        case shed(retryAfterSeconds: Int)
    }

    package let settings: Settings
    /// Starts admitted per window; nil while admission is open.
    package private(set) var budget: Int?
    private var windowStart: Duration
    /// The smallest delay observed in the current window.
    private var smallestDelay: Duration?
    private var admitted = 0
    private var shed = 0
    private var shedLastWindow = 0

    package init(settings: Settings, now: Duration) {
        self.settings = settings
        self.windowStart = now
    }

    /// A write request (callback, run start, check-out) was answered `delay` after it arrived.
    package mutating func observe(delay: Duration, at now: Duration) {
        roll(to: now)
        smallestDelay = min(smallestDelay ?? delay, delay)
    }

    /// Whether to take one more start now; an admitted start counts against this window's budget.
    package mutating func admit(at now: Duration) -> Decision {
        roll(to: now)
        guard let budget, admitted >= budget else {
            admitted += 1
            return .admit
        }
        shed += 1
        return .shed(retryAfterSeconds: retryAfterSeconds(budget: budget))
    }

    /// Seconds for the starts shed in this window and the last to be admitted at `budget` a window.
    private func retryAfterSeconds(budget: Int) -> Int {
        let windows = Double(shed + shedLastWindow) / Double(max(1, budget))
        let seconds = (windows * Self.seconds(settings.window)).rounded(.up)
        return Int(min(Double(settings.longestRetryAfter), max(1, seconds)))
    }

    /// Closes every window that ended by `now`.
    private mutating func roll(to now: Duration) {
        let window = max(settings.window, .milliseconds(1))
        guard now >= windowStart + window else { return }
        closeWindow()
        windowStart += window
        // Windows that passed with nothing observed had no standing queue; after enough of them
        // the budget is open whatever it was, so a long quiet time costs no loop.
        var quiet = 0
        while now >= windowStart + window {
            guard budget != nil, quiet < 128 else {
                budget = nil
                let elapsed = Self.seconds(now - windowStart) / Self.seconds(window)
                windowStart += window * Int(elapsed.rounded(.down))
                break
            }
            closeWindow()
            windowStart += window
            quiet += 1
        }
    }

    private mutating func closeWindow() {
        if let smallestDelay, smallestDelay > settings.target {
            let base = min(budget ?? Int.max, max(1, admitted))
            budget = max(1, Int(Double(base) * settings.decrease))
        } else if let current = budget {
            let grown = current + max(1, Int(Double(current) * settings.increase))
            budget = grown > settings.openAbove ? nil : grown
        }
        shedLastWindow = shed
        (admitted, shed, smallestDelay) = (0, 0, nil)
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
