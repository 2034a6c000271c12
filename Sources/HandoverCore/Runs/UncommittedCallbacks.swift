import Foundation
import NIOConcurrencyHelpers

/// The items whose callback this instance has received and not yet committed: the callback is
/// waiting in the group commit while earlier batches are written.
///
/// The deadline scheduler leaves these items alone. Their app has answered; the server holds the
/// answer and will write it within a batch or two. Firing their deadline would act as if the app
/// were silent: a reissue (the launcher opens the app again) or, after the last resend, a time-out
/// that fails the run. In a shift change past the server's capacity, callbacks wait here for
/// seconds, and their deadlines fired, adding writes to the writer that was already behind. (Most
/// deadlines that fire there have another cause: a launcher opens a run's apps in turn, and every
/// first deadline counts from the run's start; `docs/operations.md`.)
///
/// An instance knows only its own callbacks: with PostgreSQL and several instances, a callback
/// waiting on another instance does not hold the deadline back. A callback whose write fails
/// leaves its item pending, and the next pass fires the deadline as usual.
package final class UncommittedCallbacks: Sendable {
    /// How many callbacks of each item are on their way to a commit.
    private let waiting = NIOLockedValueBox([UUID: Int]())

    package init() {}

    /// A callback of `item` was received and goes to the group commit.
    package func received(_ item: UUID) {
        waiting.withLockedValue { $0[item, default: 0] += 1 }
    }

    /// The callback of `item` was written, or failed.
    package func settled(_ item: UUID) {
        waiting.withLockedValue { waiting in
            guard let count = waiting[item] else { return }
            waiting[item] = count > 1 ? count - 1 : nil
        }
    }

    /// Which of `items` have a callback on its way.
    package func holding(_ items: some Sequence<UUID>) -> Set<UUID> {
        waiting.withLockedValue { waiting in Set(items.filter { waiting[$0] != nil }) }
    }
}
