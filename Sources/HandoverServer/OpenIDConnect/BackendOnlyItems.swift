import Fluent
import Foundation
import HandoverCore
import HandoverProtocol
import SQLKit

/// The items of backend-only apps: nothing opens on the device, so an item finishes with the
/// Back-Channel Logout token its backend was owed for the run. Succeeded when every token for
/// the app was delivered, or when none was owed (nobody was signed in to the app on the device);
/// failed when one was refused or failed. Until then it is pending (its deadline covers the
/// token's retries).
enum BackendOnlyItems {
    /// Finishes every backend-only item of `run` whose tokens are settled; returns how many.
    @discardableResult
    static func settle(run runID: UUID, runs: LogoutRunService) async throws -> Int {
        let database = runs.database
        let items = try await LogoutItem.query(on: database).filter(\.$runID == runID).filter(\.$status == .pending).all()
        guard !items.isEmpty else { return 0 }
        // The method each item started with; items written before the run kept it read their app's.
        let methods = Dictionary(items.map { ($0.appID, $0.logoutMethod) }) { first, _ in first }
        let apps = try await RegisteredApp.query(on: database).filter(\.$id ~~ Set(items.map(\.appID))).all()
            .filter { app in (app.id.flatMap { methods[$0] ?? nil } ?? app.logoutMethod) == .backendOnly }
        guard !apps.isEmpty else { return 0 }
        let deliveries = try await BackChannelLogoutDelivery.query(on: database).filter(\.$runID == runID).all()
        var finished = 0
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
            let now = runs.clock.now()
            let done: FinishedRun?? = try await database.transaction { db in
                guard try await LogoutRunService.lockRun(runID, on: db), let sql = db as? any SQLDatabase else { return nil }
                guard try await LogoutItemTransitions(sql: sql).finish(item: itemID, version: item.version, as: state, at: now, reportedBy: nil) else {
                    return nil
                }
                let run = try await runs.finishRunIfDone(runID, on: db, now: now)
                try await DeviceLifeCycle.moveDevices(after: run.map { [$0] } ?? [], mdm: runs.mdm, on: db, now: now)
                return .some(run)
            }
            guard let done else { continue }
            finished += 1
            if let run = done { runs.metrics.runsFinished(run.state.rawValue).increment() }
        }
        if finished > 0 { await runs.changes.runChanged(runID, on: database) }
        return finished
    }
}
