import Foundation
import HandoverProtocol

/// A run's rows as values: what ``LogoutRunRows`` reads, and what the rules over them
/// (``TurnDeadline``, the run's transitions) take, with no database in sight.
extension LogoutRunRows {
    /// A stored run without its items.
    package struct Run: Sendable, Equatable {
        package var id: UUID
        package var deviceID: UUID
        package var status: LogoutRunState
        package var createdAt: Date
        package var finishedAt: Date?
    }

    /// A stored item: the view's fields and what its transitions are checked against.
    package struct Item: Sendable, Equatable {
        package var view: LogoutRunView.Item
        package var runID: UUID
        /// Every change adds one; a conditional update on it applies a change once.
        package var version: Int
        /// How its app is logged out, as the run started (nil for items older than methods).
        package var method: LogoutMethod?
    }

    /// A pending item whose deadline passed, and that deadline (``TurnDeadline``).
    package struct Due: Sendable, Equatable {
        package var item: Item
        /// When its current link was due: its stored deadline, or a first link's from its turn.
        package var deadline: Date
    }
}
