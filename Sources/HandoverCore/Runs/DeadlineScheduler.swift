import FluentKit
import Foundation
import HandoverProtocol
import SQLKit

/// Finds items whose deadline passed: reissues them while resends are left, then times them
/// out, which fails the run and escalates.
///
/// Deadlines live in the database, so they survive restarts; every instance runs the scheduler,
/// and each change is a conditional update on the item's version, so a deadline fires once.
package struct DeadlineScheduler: Sendable {
    package let runs: LogoutRunService

    package init(runs: LogoutRunService) {
        self.runs = runs
    }

    /// What one pass did.
    package struct Pass: Equatable {
        package var reissued = 0
        package var timedOut = 0
    }

    private enum Fired { case reissued, timedOut(finishedRun: LogoutRunState?) }

    /// Fires every item due now, `limit` at a time until none is left (a shift change can bring
    /// thousands within a second; they must not wait for the next pass).
    @discardableResult
    package func fireDue(limit: Int = 100) async throws -> Pass {
        var total = Pass()
        var apps: [UUID: RunApp] = [:]
        while true {
            let (pass, found) = try await fireBatch(limit: limit, apps: &apps)
            total.reissued += pass.reissued
            total.timedOut += pass.timedOut
            if found < limit || pass == Pass() { return total }
        }
    }

    private func fireBatch(limit: Int, apps: inout [UUID: RunApp]) async throws -> (Pass, found: Int) {
        let now = runs.clock.now()
        let database = runs.database
        let due = try await LogoutRunRows(sql: LogoutRunService.sql(database)).due(at: now, limit: limit)
        // The apps of this batch not met in an earlier one, in one read.
        let unknown = Set(due.map(\.view.appID)).subtracting(apps.keys)
        if !unknown.isEmpty { apps.merge(try await RunApp.withIDs(unknown, on: LogoutRunService.sql(database))) { first, _ in first } }
        var pass = Pass()
        var changedRuns = Set<UUID>()
        for item in due {
            guard let app = apps[item.view.appID] else { continue }
            let id = item.view.id
            let transition = LogoutItemState.pending.on(.deadlinePassed(attempts: item.view.attempts, maxReissues: app.maxReissues))
            let fired: Fired? = try await database.transaction { db in
                guard let sql = db as? any SQLDatabase, try await LogoutRunService.lockRun(item.runID, on: db) else { return nil }
                let transitions = LogoutItemTransitions(sql: sql)
                switch transition {
                case .reissue:
                    let deadline = now.addingTimeInterval(TimeInterval(app.deadlineSeconds))
                    return try await transitions.reissue(item: id, version: item.version, missed: item.view.deadlineAt, at: now, deadline: deadline) ? .reissued : nil
                case .finish(let state):
                    guard try await transitions.finish(item: id, version: item.version, as: state, at: now, reportedBy: nil) else { return nil }
                    let finished = try await runs.finishRunIfDone(item.runID, on: db, now: now)
                    try await DeviceLifeCycle.moveDevices(after: finished.map { [$0] } ?? [], mdm: runs.mdm, on: db, now: now)
                    return .timedOut(finishedRun: finished?.state)
                case .refuse:
                    return nil
                }
            }
            switch fired {
            case .reissued: pass.reissued += 1
            case .timedOut(let finishedRun):
                pass.timedOut += 1
                if let finishedRun { runs.metrics.runsFinished(finishedRun.rawValue).increment() }
            case nil: continue
            }
            changedRuns.insert(item.runID)
        }
        for run in changedRuns { await runs.changes.runChanged(run, on: database) }
        if pass.reissued > 0 { runs.metrics.reissues.increment(by: Int64(pass.reissued)) }
        if pass.timedOut > 0 { runs.metrics.timeouts.increment(by: Int64(pass.timedOut)) }
        return (pass, due.count)
    }
}
