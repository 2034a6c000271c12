import Foundation
import HandoverProtocol
import Prometheus

/// Finds items whose deadline passed: reissues them while resends are left, then times them
/// out, which fails the run and escalates.
///
/// A launcher opens a run's apps in turn, so an app's first link is given its whole deadline
/// from its turn: the run's start or, when later, the last answer of an app before it in the
/// run (``TurnDeadline``). A slow server then delays the apps after a slow answer instead of
/// reissuing links the launcher has not opened yet.
///
/// Deadlines live in the database, so they survive restarts; every instance runs the scheduler,
/// and each change is a conditional update on the item's version, so a deadline fires once.
///
/// The search for due items reads through `reads`: on SQLite a reader connection beside the one
/// writer, so a pass that has many items to look through (thousands wait for their turn when a
/// shift change runs past the server's capacity) does not hold the writer, and the callbacks'
/// commits behind it. A snapshot a commit has overtaken is harmless: each change is conditional
/// on the version read.
package struct DeadlineScheduler: Sendable {
    package let runs: LogoutRunService
    /// Where due items are looked for: SQLite's readers, or the runs' database.
    package let reads: DatabaseHandle

    /// - Parameter reads: a database that sees every committed write, for the search of due
    ///   items (SQLite's read connections); the runs' database when nil.
    package init(runs: LogoutRunService, reads: DatabaseHandle? = nil) {
        self.runs = runs
        self.reads = reads ?? runs.database
    }

    /// What one pass did.
    package struct Pass: Equatable {
        package var reissued = 0
        package var timedOut = 0
    }

    /// Fires every item due now, `limit` at a time until none is left (a shift change can bring
    /// thousands within a second; they must not wait for the next pass). Items whose callback
    /// waits in this instance's group commit are left for a later pass; when a whole batch is
    /// such items, the items due after them wait for that pass too.
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
        let due = try await LogoutRunRows(reads).due(at: now, limit: limit)
        // The apps of this batch not met in an earlier one, in one read.
        let unknown = Set(due.map(\.item.view.appID)).subtracting(apps.keys)
        if !unknown.isEmpty { apps.merge(try await LogoutRunRows(reads).apps(withIDs: unknown)) { first, _ in first } }
        // An item whose callback this instance holds, not yet committed, has been answered: its
        // deadline waits for the write (``UncommittedCallbacks``).
        let answered = runs.uncommittedCallbacks?.holding(due.map(\.item.view.id)) ?? []
        let firing = due.compactMap { due in answered.contains(due.item.view.id) ? nil : apps[due.item.view.appID].map { (due, $0) } }
        let pass: Pass
        let changedRuns: [UUID]
        do {
            (pass, changedRuns) = try await fire(firing, now: now)
        } catch where firing.count > 1 {
            // One transaction for the batch failed: fire each alone, so one bad item fails only itself.
            var total = Pass()
            var changed: [UUID] = []
            for one in firing {
                let (alone, runs) = try await fire([one], now: now)
                total.reissued += alone.reissued
                total.timedOut += alone.timedOut
                changed += runs
            }
            (pass, changedRuns) = (total, changed)
        }
        for run in changedRuns { runs.changes.runChangedAfterCommit(run) }
        if pass.reissued > 0 { runs.metrics.reissues.increment(by: Int64(pass.reissued)) }
        if pass.timedOut > 0 {
            runs.metrics.timeouts.increment(by: Int64(pass.timedOut))
            runs.admission?.finished(items: pass.timedOut)
        }
        return (pass, due.count)
    }

    /// Fires `items` in one transaction (one COMMIT, one fsync on SQLite, however many deadlines
    /// passed at once), and counts what finished once it committed. Returns the runs it changed.
    private func fire(_ items: [(LogoutRunRows.Due, RunApp)], now: Date) async throws -> (Pass, changedRuns: [UUID]) {
        // Nothing due (most passes): no transaction. An empty one still took SQLite's one writer
        // ten times a second, BEGIN and COMMIT each a trip to the thread pool, ahead of callbacks.
        guard !items.isEmpty else { return (Pass(), []) }
        // Runs are locked in id order, as the callback recorder locks them (PostgreSQL), so a
        // batch of deadlines and a batch of callbacks never wait on each other in a cycle.
        let ordered = items.sorted { ($0.0.item.runID.uuidString, $0.0.item.view.position) < ($1.0.item.runID.uuidString, $1.0.item.view.position) }
        let (pass, changedRuns, finishedRuns, firedDeadlines) = try await runs.database.inTransaction { db in
            // The audit log's entries last (the devices' steps, the receipts), in one append.
            try await AuditTrail.batch(on: db, now: now) {
                let rows = try LogoutRunRows(db)
                let transitions = LogoutItemTransitions(rows)
                var pass = Pass()
                var changedRuns: [UUID] = []
                // PostgreSQL: the batch's runs in one statement, skipping those another instance is
                // firing now (two schedulers found the same due items) or a callback batch holds.
                // SQLite needs no row lock (its write transactions run one at a time), and an item
                // whose run is gone is gone with it (the foreign key cascades), so its update below
                // finds nothing.
                let lockedRuns: Set<UUID>? = runs.changes.usesPostgres
                    ? try await rows.lockRuns(Set(ordered.map(\.0.item.runID)), skippingLocked: true)
                    : nil
                var timedOutRuns: [UUID] = []
                var firedDeadlines: [Date] = []
                var reissues: [LogoutItemTransitions.Reissue] = []
                for (due, app) in ordered {
                    let item = due.item
                    if let lockedRuns, !lockedRuns.contains(item.runID) { continue }
                    let id = item.view.id
                    let missed = due.deadline
                    switch LogoutItemState.pending.on(.deadlinePassed(attempts: item.view.attempts, maxReissues: app.maxReissues)) {
                    case .reissue:
                        reissues.append(.init(item: id, version: item.version, missed: missed,
                                              deadline: now.addingTimeInterval(TimeInterval(app.deadlineSeconds))))
                    case .finish(let state):
                        guard try await transitions.finish(item: id, version: item.version, as: state, at: now, reportedBy: nil) else { continue }
                        pass.timedOut += 1
                        if !timedOutRuns.contains(item.runID) { timedOutRuns.append(item.runID) }
                        firedDeadlines.append(missed)
                        if !changedRuns.contains(item.runID) { changedRuns.append(item.runID) }
                    case .refuse:
                        continue
                    }
                }
                // The reissues of the batch in two statements, whatever their number.
                let reissued = try await transitions.reissue(reissues, at: now)
                for reissue in reissues {
                    guard let run = reissued[reissue.item] else { continue }
                    pass.reissued += 1
                    firedDeadlines.append(reissue.missed)
                    if !changedRuns.contains(run) { changedRuns.append(run) }
                }
                // The runs whose items timed out and left nothing pending finish together, as a
                // callback batch's do; devices last, in id order, as the callback recorder moves them.
                let stillPending = try await transitions.runsWithPendingItems(among: timedOutRuns)
                let finishedRuns = try await runs.finishRuns(timedOutRuns.filter { !stillPending.contains($0) }.map { ($0, now) }, on: rows)
                try await runs.conclude(finishedRuns, on: db, now: now)
                // PostgreSQL delivers a NOTIFY at COMMIT, and drops it on ROLLBACK: one statement for the batch.
                try await runs.changes.runsChangedInTransaction(changedRuns, on: rows)
                return (pass, changedRuns, finishedRuns, firedDeadlines)
            }
        }
        // Committed: each deadline has fired now, and this is how late.
        let committed = runs.clock.now()
        for due in firedDeadlines {
            runs.metrics.deadlineLateness.record(.milliseconds(Int64((committed.timeIntervalSince(due) * 1000).rounded())))
        }
        for finished in finishedRuns { runs.metrics.runsFinished(finished.state.rawValue).increment() }
        return (pass, changedRuns)
    }
}
