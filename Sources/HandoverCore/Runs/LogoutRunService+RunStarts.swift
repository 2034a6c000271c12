import Foundation
import HandoverProtocol
import Prometheus

extension LogoutRunService {
    /// A run to start: on which device, of which apps (every target app when nil), and who
    /// asked (the device history's actor).
    package struct RunStart: Sendable, Equatable {
        package var deviceID: UUID
        package var appIDs: [UUID]?
        package var actor: String
        /// The launcher's idempotency key for this start (``RunStartKey``), if it sent one.
        package var key: RunStartKey?

        /// - Parameter idempotencyKey: the key the launcher sent in `Idempotency-Key`, if any: a
        ///   start sent again with it is answered with the run the first one made.
        package init(deviceID: UUID, appIDs: [UUID]? = nil, actor: String = DeviceLifeCycle.serverActor, idempotencyKey: String? = nil) {
            self.deviceID = deviceID
            self.appIDs = appIDs
            self.actor = actor
            key = idempotencyKey.map { RunStartKey(key: $0, appIDs: appIDs) }
        }
    }

    /// How many group-commit batches may be written at once (``GroupCommit``): one on SQLite,
    /// which writes one transaction at a time anyway; four on PostgreSQL, each on its own
    /// connection, where batches lock their rows in id order and so never wait in a cycle.
    package var groupCommitWriters: Int { changes.usesPostgres ? 4 : 1 }

    /// Starts a logout run of `appIDs` (every target app when nil) on the device, in one
    /// transaction with the device's life-cycle step, and returns it with each item's link.
    ///
    /// - Parameter reads: where the target apps are read (SQLite's read connections, so that
    ///   the one writer only writes); this service's database when nil.
    package func createRun(deviceID: UUID, appIDs: [UUID]?, actor: String = DeviceLifeCycle.serverActor,
                           readingAppsOn reads: DatabaseHandle? = nil) async throws -> LogoutRunView {
        try await createRuns([RunStart(deviceID: deviceID, appIDs: appIDs, actor: actor)], readingAppsOn: reads)[0].get()
    }

    /// Starts runs in one transaction (a group commit; the routes call this through
    /// ``GroupCommit``), each as if alone: the devices locked and stepped, the runs and their
    /// items written, with a few statements for the whole batch, and the rest of each hand-over
    /// (``handOver``) in the same transaction. A run whose hand-over ended sessions comes back
    /// with the state of the logout tokens it owes backends (``BackChannelLogoutReport``). A
    /// start that cannot begin (an unknown device or app, no target app) fails alone; when the
    /// transaction fails, each start is tried again in a transaction of its own. A start whose
    /// idempotency key its device already used starts nothing: it is answered with the run that key
    /// started (or refused, when it asked for other apps; ``RunStartKey``).
    ///
    /// Returns one result per start, in the order given.
    package func createRuns(_ starts: [RunStart], readingAppsOn reads: DatabaseHandle? = nil) async -> [Result<LogoutRunView, any Error>] {
        guard !starts.isEmpty else { return [] }
        let now = clock.now()
        let targets: [RunApp]
        do {
            targets = try await LogoutRunRows(reads ?? database).targetApps()
        } catch {
            return starts.map { _ in .failure(error) }
        }
        let methods = Dictionary(targets.map { ($0.id, $0.logoutMethod ?? .ulc) }) { first, _ in first }
        var results: [Result<LogoutRunView, any Error>] = starts.map { start in
            Result { try plan(start, targets: targets, now: now) }
        }
        let planned = results.enumerated().compactMap { index, result in (try? result.get()).map { (index, $0) } }
        guard !planned.isEmpty else { return results }
        do {
            let (written, aftermath) = try await database.inTransaction { db in
                // The audit log's entries (the devices' steps) go in last, in one append: on
                // PostgreSQL the counter row every instance's appends wait for is held for one
                // statement and COMMIT.
                try await AuditTrail.batch(on: db, now: now) {
                    let written = try await self.write(planned.map { (starts[$0.0], $0.1) }, methods: methods, on: db, now: now)
                    // The hand-over's other steps, in the same transaction: all of it, or none.
                    // On PostgreSQL the statement that wrote the runs sent their NOTIFY, delivered at COMMIT.
                    let started = planned.filter { written.started($0.1.id) }.map { HandOverStart(device: starts[$0.0].deviceID, run: $0.1) }
                    guard let handOver = self.handOver, !started.isEmpty else { return (written, HandOverAftermath.none) }
                    return (written, try await handOver.devicesChangeHands(started, on: db))
                }
            }
            aftermath.afterCommit()
            for (index, run) in planned {
                if let refusal = written.refused[run.id] {
                    results[index] = .failure(refusal)
                    continue
                }
                if let existing = written.repeated[run.id] {
                    // The start was made before (its answer lost): the run it made, as it is now.
                    do {
                        results[index] = .success(try await BackChannelLogoutReport.adding(to: try await view(existing), on: reads ?? database))
                    } catch {
                        results[index] = .failure(error)
                    }
                    continue
                }
                metrics.runsCreated.increment()
                // The callbacks it owes: its apps that answer by link (a backend-only app's
                // item is settled by its backend's token).
                admission?.started(items: run.items.count { $0.link != nil })
                runDevices?.remember(run: run.id, device: starts[index].deviceID)
                if aftermath.changedRuns.contains(run.id), let changed = try? await view(run.id) {
                    results[index] = .success(changed)
                }
                // The state of the logout tokens the hand-over owes backends: read only for a run
                // whose device had someone signed in (no other run can owe one yet).
                if aftermath.signedOutRuns.contains(run.id), case .success(let current) = results[index],
                   let reported = try? await BackChannelLogoutReport.adding(to: current, on: reads ?? database) {
                    results[index] = .success(reported)
                }
                changes.runChangedAfterCommit(run.id)
            }
            return results
        } catch {
            guard planned.count > 1 else {
                results[planned[0].0] = .failure(error)
                return results
            }
            for (index, _) in planned { results[index] = await createRuns([starts[index]], readingAppsOn: reads)[0] }
            return results
        }
    }

    /// The refusal of a run on a retired device (``HandoverProtocol/DeviceStatus/Refusal/retired``).
    package static let retiredDevice = DomainError(.conflict, code: DeviceStatus.Refusal.retired.rawValue,
                                                   reason: "The device is retired: it left the fleet, and no hand-over starts on it.")

    /// The run a start makes, with each item's link, decided before anything is written.
    private func plan(_ start: RunStart, targets: [RunApp], now: Date) throws -> LogoutRunView {
        var apps = targets
        if let appIDs = start.appIDs {
            let known = Dictionary(apps.map { ($0.id, $0) }) { first, _ in first }
            // Each app once, in the order asked: a list that repeats an app (6,000 copies of one
            // id, say) makes a run no longer than the registry.
            var seen = Set<UUID>()
            apps = try appIDs.enumerated().compactMap { index, id in
                guard let app = known[id] else { throw DomainError.invalid("apps[\(index)]", "no target app has the id \(id)") }
                return seen.insert(id).inserted ? app : nil
            }
        }
        guard !apps.isEmpty else {
            throw DomainError(.conflict, code: "no_apps", reason: "There are no target apps to log out; register apps with POST /api/v1/apps first.")
        }
        let runID = UUID()
        let items = apps.enumerated().map { position, app in
            // A backend-only app's item waits for its backend's token (retried for about four minutes).
            let deadline = app.logoutMethod == .backendOnly ? Self.backendOnlyDeadline : TimeInterval(app.deadlineSeconds)
            var item = LogoutRunView.Item(id: UUID(), appID: app.id, app: app.name, position: position, status: .pending, attempts: 1,
                                          issuedAt: now, deadlineAt: now.addingTimeInterval(deadline))
            item.link = try? link(for: app, run: runID, item: item.id, attempt: 1)
            return item
        }
        return LogoutRunView(id: runID, deviceID: start.deviceID, status: .running, createdAt: now, finishedAt: nil, items: items)
    }

    /// What ``write(_:methods:on:now:)`` did with each planned run: started it, refused it, or
    /// found its start made before under the same idempotency key.
    private struct Written: Sendable {
        /// The runs refused, nothing of theirs written, by planned run id.
        var refused: [UUID: DomainError] = [:]
        /// The runs not written because their key already started a run: that run, by planned run id.
        var repeated: [UUID: UUID] = [:]

        func started(_ run: UUID) -> Bool { refused[run] == nil && repeated[run] == nil }
    }

    /// Writes planned runs in the caller's transaction. Refused, nothing of theirs written: those
    /// whose device does not exist (404), or is retired (409 `device_retired`, read in the statement
    /// that locks the devices), and those whose idempotency key their device used for another
    /// request (422). A run whose key its device used for the same request is not written either:
    /// it is answered with that run.
    private func write(_ runs: [(start: RunStart, run: LogoutRunView)], methods: [UUID: LogoutMethod], on db: DatabaseHandle,
                       now: Date) async throws -> Written {
        let rows = try LogoutRunRows(db)
        // The devices first, locked and read in one statement (a write: on SQLite the
        // transaction holds the write lock from here on).
        let statuses = try await DeviceStore(db).lock(Set(runs.map(\.start.deviceID)))
        var outcome = Written()
        for (start, run) in runs {
            switch statuses[start.deviceID] {
            case nil: outcome.refused[run.id] = DomainError.notFound("device")
            case .retired: outcome.refused[run.id] = Self.retiredDevice
            default: break
            }
        }
        let candidates = runs.filter { outcome.refused[$0.run.id] == nil }
        guard !candidates.isEmpty else { return outcome }
        // The runs, with their keys: a key its device already used skips its run (the devices are
        // locked above, so a start of the same device on another instance waits for this one).
        let skipped = try await rows.insert(candidates.map { start, run in
            LogoutRunRows.NewRun(id: run.id, deviceID: start.deviceID, createdAt: now, items: run.items.map { item in
                var item = item
                item.link = nil
                return item
            }, key: start.key)
        }, methods: methods, notifying: changes.usesPostgres ? RunChangeNotifier.channel : nil)
        if !skipped.isEmpty {
            let keyed = candidates.filter { skipped.contains($0.run.id) }
            let existing = try await rows.runs(startedWith: keyed.compactMap { start, _ in
                start.key.map { (start.deviceID, $0.key) }
            })
            for (start, run) in keyed {
                guard let key = start.key, let found = existing[.init(device: start.deviceID, key: key.key)] else {
                    throw DomainError(.storage, code: "run_start_key", reason: "A run start's key was taken, and no run holds it.")
                }
                switch key.decide(existingDigest: found.digest) {
                case .answerWithExistingRun: outcome.repeated[run.id] = found.id
                case .refuse: outcome.refused[run.id] = RunStartKey.reused
                }
            }
        }
        // Each device steps once here; a second start for one device in this batch steps after,
        // from the status the first left.
        var firsts = Set<UUID>()
        var steps: [DeviceLifeCycle.Step] = [], later: [(start: RunStart, run: LogoutRunView)] = []
        for (start, run) in candidates where !skipped.contains(run.id) {
            guard let from = statuses[start.deviceID] else { continue }
            if firsts.insert(start.deviceID).inserted {
                steps.append(DeviceLifeCycle.Step(device: start.deviceID, from: from, run: run.id, actor: start.actor))
            } else {
                later.append((start, run))
            }
        }
        guard !steps.isEmpty else { return outcome }
        // Each device steps, its last run with it (a second start for a device in this batch
        // steps after: its run is the device's last).
        try await DeviceLifeCycle.move(steps, on: .runStarted, on: db, now: now)
        for (start, run) in later {
            try await DeviceLifeCycle.apply(.runStarted, to: start.deviceID, run: run.id, actor: start.actor, on: db, now: now)
        }
        return outcome
    }
}
