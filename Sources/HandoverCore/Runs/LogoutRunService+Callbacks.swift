import Foundation
import HandoverProtocol
import HandoverSchema
import LinkCallbacks
import Prometheus

extension LogoutRunService {
    /// A callback to record: which item, which outcome, the nonce presented, and who reported it
    /// (the callback page, or the device's launcher reporting a universal link).
    package struct Callback: Sendable, Equatable {
        package var run: UUID
        package var item: UUID
        package var outcome: CallbackOutcome
        package var nonce: String
        package var reportedBy: CallbackReporter

        package init(run: UUID, item: UUID, outcome: CallbackOutcome, nonce: String, reportedBy: CallbackReporter) {
            self.run = run
            self.item = item
            self.outcome = outcome
            self.nonce = nonce
            self.reportedBy = reportedBy
        }
    }

    /// Records callbacks in one transaction (a group commit; the routes call this through
    /// ``GroupCommit``): each one is checked and applied as if alone (single-use nonce, item
    /// update, run completion, webhook rows), in arrival order for each item, and nothing is
    /// reported before COMMIT succeeded. When the transaction fails, each callback is retried in
    /// a transaction of its own, so one bad callback fails only itself.
    ///
    /// The usual callbacks of a batch (the first for its item, with a nonce of one of the first
    /// attempts) are written by one statement for the whole batch (``LogoutItemTransitions/finishByNonce(_:notifying:)``),
    /// and the runs they touched counted by the same statement (PostgreSQL, where it also sends
    /// their `NOTIFY`) or one more (SQLite);
    /// only the rest (a replay, a stranger's nonce) are checked one by one. On SQLite's one writer, a statement less is a wait less
    /// for every request behind it.
    ///
    /// Returns one result per callback, in the order given.
    package func record(_ callbacks: [(callback: Callback, at: Date)]) async -> [Result<Recording, any Error>] {
        guard !callbacks.isEmpty else { return [] }
        do {
            // The audit log's entries (the devices' steps, the receipts) go in last, in one append,
            // so that on PostgreSQL the counter row every instance's appends wait for is held for
            // one statement and COMMIT.
            let last = callbacks.map(\.at).max() ?? callbacks[0].at
            let batch = try await database.inTransaction { db in
                try await AuditTrail.batch(on: db, now: last) { try await self.apply(callbacks, on: db) }
            }
            // Committed: now count, and tell local live views (SQLite; PostgreSQL's NOTIFY is on its way).
            for finished in batch.finishedRuns { metrics.runsFinished(finished.state.rawValue).increment() }
            var published = Set<UUID>()
            admission?.finished(items: batch.recordings.count { if case .recorded = $0 { true } else { false } })
            for (index, recording) in batch.recordings.enumerated() {
                switch recording {
                case .recorded(_, let outcome):
                    metrics.callbacks(outcome.rawValue).increment()
                    let run = callbacks[index].callback.run
                    if published.insert(run).inserted { changes.runChangedAfterCommit(run) }
                case .alreadyRecorded:
                    metrics.callbacks("replayed").increment()
                case .unknown:
                    metrics.callbacks("unknown").increment()
                }
            }
            return batch.recordings.map { .success($0) }
        } catch {
            guard callbacks.count > 1 else { return [.failure(error)] }
            var results: [Result<Recording, any Error>] = []
            for callback in callbacks { results.append(contentsOf: await record([callback])) }
            return results
        }
    }

    /// What one batch did, inside its transaction.
    private struct BatchOutcome {
        var recordings: [Recording]
        var finishedRuns: [FinishedRun]
    }

    /// Checks and applies a batch inside the caller's transaction.
    private func apply(_ callbacks: [(callback: Callback, at: Date)], on db: DatabaseHandle) async throws -> BatchOutcome {
        let rows = try LogoutRunRows(db)
        var recordings = [Recording?](repeating: nil, count: callbacks.count)
        // PostgreSQL: every run of the batch locked first, in id order, in one statement, so
        // that two batches never wait on each other in a cycle, and two transactions finishing
        // the last two items of a run see each other's writes and exactly one finishes it.
        // SQLite needs no row lock: its write transactions run one at a time.
        var runs: Set<UUID>?
        if changes.usesPostgres {
            runs = try await rows.lockRuns(Set(callbacks.map(\.callback.run)))
        }

        // 1. The usual callbacks, in one statement: the first callback of each item (so that the
        //    item's arrival order holds: any later one is checked after it), with a nonce of one
        //    of the first attempts. The conditional update is the single-use check.
        var firsts = Set<UUID>()
        var usual: [(index: Int, finish: LogoutItemTransitions.NonceFinish)] = []
        for (index, (callback, at)) in callbacks.enumerated() where firsts.insert(callback.item).inserted {
            if let runs, !runs.contains(callback.run) {
                recordings[index] = .unknown
                continue
            }
            guard case .finish(let state) = LogoutItemState.pending.on(.callback(callback.outcome)),
                  let attempt = nonces.attempt(of: callback.nonce, item: callback.item, upTo: CallbackNonce.fastPathAttempts)
            else { continue }
            usual.append((index, LogoutItemTransitions.NonceFinish(item: callback.item, run: callback.run, attempt: attempt, state: state,
                                                                   at: at, reportedBy: callback.reportedBy)))
        }
        let transitions = LogoutItemTransitions(rows)
        // On PostgreSQL the same statement sends the NOTIFY of each run it changed.
        let finishes = try await transitions.finishByNonce(usual.map(\.finish), notifying: changes.usesPostgres ? RunChangeNotifier.channel : nil)
        let finishedItems = finishes.apps
        // The runs changed, each once, in the order first changed; and when each was last answered.
        var changedRuns: [UUID] = []
        var lastAnswered: [UUID: Date] = [:]
        for (index, finish) in usual {
            guard let app = finishedItems[finish.item] else { continue }
            recordings[index] = .recorded(app: app, outcome: callbacks[index].callback.outcome)
            if lastAnswered.updateValue(max(finish.at, lastAnswered[finish.run] ?? finish.at), forKey: finish.run) == nil {
                changedRuns.append(finish.run)
            }
        }
        // On PostgreSQL, the runs changed so far were told by the statement that changed them.
        let toldByTheStatement = changes.usesPostgres ? changedRuns.count : 0

        // 2. The runs those callbacks left with nothing pending finish, together. (Their rows are
        //    locked already; their devices move last, in id order, below.)
        var stillPending = finishes.runsStillPending ?? []
        if finishes.runsStillPending == nil { stillPending = try await transitions.runsWithPendingItems(among: changedRuns) }
        var finishedRuns = try await finishRuns(changedRuns.filter { !stillPending.contains($0) }.map { run in
            (run, lastAnswered[run] ?? callbacks[0].at)
        }, on: rows)

        // 3. The rest one by one, in arrival order.
        for index in callbacks.indices where recordings[index] == nil {
            let (callback, now) = callbacks[index]
            let (recording, finished) = try await apply(callback, now: now, on: db, rows: rows)
            recordings[index] = recording
            if let finished { finishedRuns.append(finished) }
            if case .recorded = recording, lastAnswered.updateValue(now, forKey: callback.run) == nil { changedRuns.append(callback.run) }
        }

        // Devices last, in id order: a transaction that holds a device's row never waits for a
        // run's, so two batches finishing runs of one device cannot deadlock.
        try await conclude(finishedRuns, on: db, now: callbacks.map(\.at).max() ?? callbacks[0].at)
        // PostgreSQL delivers a NOTIFY at COMMIT, and drops it on ROLLBACK: the runs changed one
        // by one are told here.
        try await changes.runsChangedInTransaction(Array(changedRuns.dropFirst(toldByTheStatement)), on: rows)
        return BatchOutcome(recordings: recordings.map { $0 ?? .unknown }, finishedRuns: finishedRuns)
    }

    /// Checks and applies one callback inside the caller's transaction. Returns what it did, and
    /// the run when this callback finished it (its device's step is the caller's to take).
    private func apply(_ callback: Callback, now: Date, on db: DatabaseHandle, rows: LogoutRunRows) async throws
        -> (Recording, FinishedRun?) {
        guard case .finish(let finished) = LogoutItemState.pending.on(.callback(callback.outcome)) else { return (.unknown, nil) }
        // A nonce of one of the first attempts, for a pending item of this run, in one statement
        // that also counts the run's other pending items (a later callback for an item whose
        // first callback was not the usual kind).
        let transitions = LogoutItemTransitions(rows)
        if let attempt = nonces.attempt(of: callback.nonce, item: callback.item, upTo: CallbackNonce.fastPathAttempts),
           let (app, othersPending) = try await transitions.finishByNonce(item: callback.item, run: callback.run, attempt: attempt,
                                                                         as: finished, at: now, reportedBy: callback.reportedBy) {
            let runState = othersPending == 0 ? try await finishRunIfDone(callback.run, on: db, now: now, nonePending: true) : nil
            return (.recorded(app: app, outcome: callback.outcome), runState)
        }
        // Everything else (a replay, a stranger's nonce, a late attempt): the full check.
        guard try await Self.lockRun(callback.run, on: db) else { return (.unknown, nil) }
        guard let item = try await LogoutItem.stored(callback.item, on: db), item.runID == callback.run,
              nonces.attempt(of: callback.nonce, item: callback.item, attempts: item.attempts) != nil else { return (.unknown, nil) }
        let state = item.status
        guard state.on(.callback(callback.outcome)) == .finish(finished) else {
            return (.alreadyRecorded(app: item.appName, status: state), nil)
        }
        let updated = try await transitions.finish(item: callback.item, version: item.version, as: finished, at: now,
                                                   reportedBy: callback.reportedBy)
        guard updated else { return (.alreadyRecorded(app: item.appName, status: state), nil) }
        let runState = try await finishRunIfDone(callback.run, on: db, now: now)
        return (.recorded(app: item.appName, outcome: callback.outcome), runState)
    }

    /// Takes the run's row lock (PostgreSQL) or the write lock (SQLite); false when there is no such run
    /// (``LogoutRunRows/lockRun(_:on:)``).
    package static func lockRun(_ runID: UUID, on db: DatabaseHandle) async throws -> Bool {
        try await LogoutRunRows.lockRun(runID, on: db)
    }
}
