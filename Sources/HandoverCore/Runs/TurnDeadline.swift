import Foundation
import HandoverProtocol

/// When an item's current link is really due: the rule the deadline scheduler fires by, and the
/// deadline a run's view shows.
///
/// A launcher opens a run's apps in turn (in ULC each app hands the phone back before the next
/// is opened), so an app's first link cannot be answered before the apps ahead of it were. Its
/// deadline counts from its turn: when its turn began after the link was issued, it is due the
/// same time after its turn as its link gave it (its deadline less its issue). Its turn began at
/// the last answer to a first link of an app before it in the run. Answers to resends do not
/// count, as a launcher opens an app's first link before it goes back to reissued ones; so a
/// stalled app is not kept waiting by the apps after it, nor by their resends. Resends count
/// from when they were issued, and so do backend-only apps, which no launcher opens.
///
/// Nothing is written for this: an item's stored deadline stays its link's. The rule has two
/// forms: ``deadline(of:in:)`` over a run's items, here, and ``sql`` over a row of `logout_items`
/// (in the store, ``LogoutRunRows``), which the scheduler's statement uses. `TurnDeadlineTests`
/// checks that they agree.
package enum TurnDeadline {
    /// The deadline of `item` among its run's `items` (the item included or not), as the
    /// scheduler sees it while the item is pending. For an item that finished, only the answers
    /// up to its end count.
    package static func deadline(of item: LogoutRunRows.Item, in items: [LogoutRunRows.Item]) -> Date {
        let link = item.view
        guard link.attempts == 1, item.method != .backendOnly else { return link.deadlineAt }
        let end = link.finishedAt ?? .distantFuture
        let turn = items.compactMap { other -> Date? in
            let earlier = other.view
            guard earlier.position < link.position, earlier.attempts == 1, earlier.reportedBy != nil,
                  let answered = earlier.finishedAt, answered <= end else { return nil }
            return answered
        }.max()
        guard let turn, turn > link.issuedAt else { return link.deadlineAt }
        return turn.addingTimeInterval(link.deadlineAt.timeIntervalSince(link.issuedAt))
    }
}
