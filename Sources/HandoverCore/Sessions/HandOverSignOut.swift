import Foundation
import HandoverProtocol
import Prometheus

/// The server's part of a hand-over (``HandoverCore/HandOverSteps``), written in the transaction
/// that starts the devices' runs:
/// - the Native SSO device secrets bound to each device, and every session from them;
/// - every other session signed in with the device (browser sessions its enrolled phone approved
///   included), each backend told by Back-Channel Logout through the outbox;
/// - the enrolled phone's pushes;
/// - the backend-only items of the new run that had nobody signed in: done at once;
/// - the custody of whoever held the device: checked in, with the run.
///
/// One statement first asks which devices of the batch have sessions or a phone to end: most
/// devices of a shift change have nobody signed in by Native SSO and no enrolled phone, and then
/// nothing else is asked of the writer but one statement that checks the batch's custodies in.
/// The statements are ``SessionStore``'s.
package struct HandOverSignOut: HandOverSteps {
    package let sessions: SessionAuthority
    /// The runs (for settling backend-only items); their own ``LogoutRunService/handOver`` is not used.
    package let runs: LogoutRunService

    package func devicesChangeHands(_ handOvers: [HandOverStart], on db: DatabaseHandle) async throws -> HandOverAftermath {
        let store = SessionStore(db)
        guard store.speaksSQL, !handOvers.isEmpty else { return .none }
        let now = sessions.clock.now()
        let occupied = try await store.occupied(Array(Set(handOvers.map(\.device))))
        var ended: [UUID] = []
        var signedOut = Set<UUID>()
        for start in handOvers where occupied.contains(start.device) {
            ended += try await signOut(start.device, run: start.run.id, on: db, now: now)
            signedOut.insert(start.run.id)
        }
        // The hand-over checks the held devices in, each custody ending with its run: one
        // statement for the batch, whether or not anyone holds them (a held device has nothing
        // else to end unless someone also signed in on it).
        try await store.checkIn(handOvers.map { ($0.device, $0.run.id) }, now: now)
        // Backend-only items (pending, without a link) whose device had nobody signed in are done.
        var changed = Set<UUID>()
        var finished: [FinishedRun] = []
        for start in handOvers where start.run.items.contains(where: { $0.isPending && $0.link == nil }) {
            let settled = try await BackendOnlyItems.settle(run: start.run.id, runs: runs, on: db)
            if settled.items > 0 { changed.insert(start.run.id) }
            finished += settled.finishedRuns
        }
        let announced = ended.map(\.uuidString)
        return HandOverAftermath(changedRuns: changed, signedOutRuns: signedOut) { [sessions, metrics = runs.metrics, finished] in
            sessions.announce(announced, now: now)
            for run in finished { metrics.runsFinished(run.state.rawValue).increment() }
        }
    }

    /// Ends what is live on one device; returns the sessions ended.
    private func signOut(_ device: UUID, run: UUID, on db: DatabaseHandle, now: Date) async throws -> [UUID] {
        let store = SessionStore(db)
        let secrets = try await store.liveDeviceSecretIDs(onDevice: device)
        var ended = try await sessions.end(deviceSecrets: secrets, reason: "device_logout", deviceID: device, runID: run, on: db, now: now)
        let signedIn = try await store.liveSessionIDs(onDevice: device)
        try await sessions.end(sessions: signedIn, reason: "device_logout", deviceID: device, runID: run, on: db, now: now)
        ended += signedIn
        // The phone the previous user enrolled stops receiving their operations by push.
        try await store.stopPushes(toDevice: device)
        // PostgreSQL: the other instances hear of it at COMMIT (a NOTIFY in a transaction waits for it).
        await sessions.notifyOthers(ended, on: db)
        return ended
    }

    package init(sessions: SessionAuthority, runs: LogoutRunService) {
        self.sessions = sessions
        self.runs = runs
    }
}
