import Foundation
import HandoverProtocol
import HandoverSchema
import Prometheus

/// The items of backend-only apps: nothing opens on the device, so an item finishes with the
/// Back-Channel Logout token its backend was owed for the run. Succeeded when every token for
/// the app was delivered, or when none was owed (nobody was signed in to the app on the device);
/// failed when one was refused or failed. Until then it is pending (its deadline covers the
/// token's retries).
package enum BackendOnlyItems {
    /// Finishes every backend-only item of `run` whose tokens are settled, in one transaction;
    /// returns how many.
    @discardableResult
    package static func settle(run runID: UUID, runs: LogoutRunService) async throws -> Int {
        let settled = try await runs.database.inTransaction { db in try await settle(run: runID, runs: runs, on: db) }
        for run in settled.finishedRuns { runs.metrics.runsFinished(run.state.rawValue).increment() }
        if settled.items > 0 { await runs.changes.runChanged(runID, on: runs.database) }
        return settled.items
    }

    /// What settling a run's backend-only items did.
    package struct Settled: Sendable {
        /// Items finished.
        package var items = 0
        /// The run, when the last item finished it (its device has stepped already).
        package var finishedRuns: [FinishedRun] = []
    }

    /// Finishes every backend-only item of `run` whose tokens are settled, in the caller's
    /// transaction (a hand-over's: ``HandOverSignOut``). Counting and telling live views are the
    /// caller's, once it has committed.
    package static func settle(run runID: UUID, runs: LogoutRunService, on db: DatabaseHandle) async throws -> Settled {
        let store = BackChannelLogoutStore(db)
        // The run's lock first: a write, so that on SQLite the transaction holds the write lock
        // before it reads.
        guard try await LogoutRunService.lockRun(runID, on: db), let transitions = store.itemTransitions() else { return Settled() }
        let items = try await store.pendingItems(ofRun: runID)
        guard !items.isEmpty else { return Settled() }
        // The method each item started with; items written before the run kept it read their app's.
        let methods = Dictionary(items.map { ($0.appID, $0.logoutMethod) }) { first, _ in first }
        let apps = try await store.apps(ids: Set(items.map(\.appID)))
            .filter { app in (app.id.flatMap { methods[$0] ?? nil } ?? app.logoutMethod) == .backendOnly }
        guard !apps.isEmpty else { return Settled() }
        let deliveries = try await store.deliveries(ofRun: runID)
        var settled = Settled()
        let now = runs.clock.now()
        for app in apps {
            guard let appID = app.id, let item = items.first(where: { $0.appID == appID }), let itemID = item.id else { continue }
            let clients = RegisteredClients.clientIDs(of: app)
            let owed = deliveries.filter { clients.contains($0.clientID) }
            let state: LogoutItemState
            if owed.allSatisfy({ $0.status == .delivered }) {
                state = .succeeded
            } else if owed.contains(where: { $0.status == .pending }) {
                continue
            } else {
                state = .failed
            }
            guard try await transitions.finish(item: itemID, version: item.version, as: state, at: now, reportedBy: nil) else {
                continue
            }
            settled.items += 1
            if let run = try await runs.finishRunIfDone(runID, on: db, now: now) {
                try await runs.conclude([run], on: db, now: now)
                settled.finishedRuns.append(run)
            }
        }
        return settled
    }
}
