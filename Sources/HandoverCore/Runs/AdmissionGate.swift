import Foundation
import NIOConcurrencyHelpers

/// An instance's ``AdmissionControl``, shared under a lock: the server's admission middleware asks
/// it whether to take a run start and tells it each write request's delay; the runs service tells
/// it the callbacks each run it started owes and each one recorded; the deadline scheduler, each
/// app it timed out. Its intervals follow the server's clock, so a test moves them with a manual
/// clock.
package final class AdmissionGate: Sendable {
    private let control: NIOLockedValueBox<AdmissionControl>
    private let clock: any ServerClock

    package init(settings: AdmissionControl.Settings, clock: any ServerClock) {
        self.clock = clock
        control = NIOLockedValueBox(AdmissionControl(settings: settings, now: Self.position(clock.now())))
    }

    /// Whether to take one more start (or check-out) now; an admitted one is answered through
    /// ``observe(delay:answeredStart:)``. `work` names what it asks for, the same each time it is
    /// asked again (the request's path), so that a start shed with a turn is taken at its turn.
    package func admit(_ work: String) -> AdmissionControl.Decision {
        let now = Self.position(clock.now())
        return control.withLockedValue { $0.admit(work, at: now) }
    }

    /// A write request was answered `delay` after it arrived; `answeredStart` when it was an
    /// admitted start (or check-out), which then no longer counts as owed (one lock for both).
    package func observe(delay: Duration, answeredStart: Bool = false) {
        let now = Self.position(clock.now())
        control.withLockedValue {
            $0.observe(delay: delay, at: now)
            if answeredStart { $0.answered() }
        }
    }

    /// A run started (committed) that owes `items` callbacks.
    package func started(items: Int) {
        control.withLockedValue { $0.started(items: items) }
    }

    /// `items` callbacks were recorded (committed), or apps timed out.
    package func finished(items: Int) {
        guard items > 0 else { return }
        let now = Self.position(clock.now())
        control.withLockedValue { $0.finished(items: items, at: now) }
    }

    /// The clock's time as a position on the control's time line.
    private static func position(_ date: Date) -> Duration {
        .milliseconds(Int64((date.timeIntervalSince1970 * 1000).rounded(.down)))
    }
}
