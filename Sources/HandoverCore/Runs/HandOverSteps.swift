import Foundation
import HandoverProtocol

/// What else ends when a device changes hands, written in the transaction that starts its
/// logout run (``LogoutRunService/createRuns(_:readingAppsOn:)``): the previous holder's
/// sessions, the device's Native SSO secrets, its enrolled phone's pushes, and the backend-only
/// apps that had nobody signed in. The hand-over is then all or nothing: a failure anywhere in it
/// leaves no run, no device step and no ended session behind, and the start fails.
///
/// The server provides the steps (sessions live there); the domain decides when they run. The API
/// (`POST /devices/{id}/logout-runs`) and the overdue pass start runs the same way, so both hand
/// over the same way.
package protocol HandOverSteps: Sendable {
    /// Ends what the previous holders of these devices left behind, on `db`, inside the
    /// transaction that has just written their runs.
    ///
    /// - Returns: the runs whose items these steps changed (their views are read again once the
    ///   transaction has committed), and work to do only after COMMIT (telling this instance's
    ///   memory which sessions ended). Nothing of the returned work runs when the transaction
    ///   rolls back.
    func devicesChangeHands(_ handOvers: [HandOverStart], on db: DatabaseHandle) async throws -> HandOverAftermath
}

/// A run just written in a hand-over's transaction, and its device.
package struct HandOverStart: Sendable {
    package var device: UUID
    package var run: LogoutRunView

    package init(device: UUID, run: LogoutRunView) {
        self.device = device
        self.run = run
    }
}

/// What a hand-over's steps leave for after COMMIT.
package struct HandOverAftermath: Sendable {
    /// Runs whose items the steps finished: their views are read again.
    package var changedRuns: Set<UUID>
    /// Runs whose device had someone signed in, whose sessions the steps ended: only their
    /// backends can be owed a logout token, so only their answers are read for the tokens' state
    /// (``BackChannelLogoutReport``).
    package var signedOutRuns: Set<UUID>
    /// Runs once the transaction has committed, never when it rolls back.
    package var afterCommit: @Sendable () -> Void

    package init(changedRuns: Set<UUID> = [], signedOutRuns: Set<UUID> = [], afterCommit: @escaping @Sendable () -> Void = {}) {
        self.changedRuns = changedRuns
        self.signedOutRuns = signedOutRuns
        self.afterCommit = afterCommit
    }

    /// Nothing to do.
    package static let none = HandOverAftermath()
}
