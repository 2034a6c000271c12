import LinkCallbacks
import NIOConcurrencyHelpers

/// The apps' logout actions, each checked once (``UniversalLinkCallback/Action``): a run writes a
/// link per app, and a shift change thousands of runs to the same few apps.
///
/// Keyed by the action's text, so an app whose action changes is checked again under its new
/// text. Bounded: past ``limit`` different actions it starts over.
package final class ULCActionCache: Sendable {
    /// The one cache of the process (its entries depend only on their key).
    package static let shared = ULCActionCache(limit: 4096)

    package let limit: Int
    private let actions = NIOLockedValueBox<[String: UniversalLinkCallback.Action]>([:])

    package init(limit: Int) {
        self.limit = limit
    }

    /// The checked action for `text`; throws what the check found.
    package func action(_ text: String) throws(LinkError) -> UniversalLinkCallback.Action {
        if let known = actions.withLockedValue({ $0[text] }) { return known }
        let action = try UniversalLinkCallback.Action(text)
        actions.withLockedValue { actions in
            if actions.count >= limit { actions.removeAll(keepingCapacity: true) }
            actions[text] = action
        }
        return action
    }
}
