import Fluent
import Foundation
import LinkCallbacks
import SQLKit
import Vapor

/// Creates logout runs, records callbacks, and finishes runs: every change in one transaction,
/// with its webhook events written to the outbox in that same transaction.
struct LogoutRunService: Sendable {
    let database: Database
    let clock: ServerClock
    let publicURL: URL
    let nonces: CallbackNonce
    let changes: RunChangeNotifier
    let metrics: ServerMetrics

    /// What recording a callback did.
    enum Recording: Equatable {
        case recorded(app: String, outcome: CallbackOutcome)
        /// The item already has an outcome: nothing was recorded.
        case alreadyRecorded(app: String, status: LogoutItemState)
        /// No such run or item, or the nonce was not issued for it.
        case unknown
    }

    // MARK: Creating runs

    func createRun(deviceID: UUID, appIDs: [UUID]?) async throws -> RunView {
        let now = clock.now()
        var apps = try await RegisteredApp.query(on: database).filter(\.$role == "target").sort(\.$createdAt).all()
        if let appIDs {
            let known = Dictionary(uniqueKeysWithValues: apps.compactMap { app in app.id.map { ($0, app) } })
            apps = try appIDs.map { id in
                guard let app = known[id] else { throw APIError.invalid("apps", "no target app has the id \(id)") }
                return app
            }
        }
        guard !apps.isEmpty else {
            throw APIError(.conflict, code: "no_apps", reason: "There are no target apps to log out; register apps with POST /api/v1/apps first.")
        }
        let runID = UUID()
        let targets = apps
        try await database.transaction { db in
            try await LogoutRun(id: runID, deviceID: deviceID, status: .running, createdAt: now).create(on: db)
            for (position, app) in targets.enumerated() {
                let item = LogoutItem()
                item.runID = runID
                item.appID = try app.requireID()
                item.appName = app.name
                item.position = position
                item.status = LogoutItemState.pending.rawValue
                item.attempts = 1
                item.issuedAt = now
                item.deadlineAt = now.addingTimeInterval(TimeInterval(app.deadlineSeconds))
                item.version = 0
                try await item.create(on: db)
            }
            if let device = try await Device.find(deviceID, on: db) {
                device.lastRunID = runID
                try await device.save(on: db)
            }
        }
        metrics.runsCreated.increment()
        await changes.runChanged(runID, on: database)
        return try await view(runID)
    }

    // MARK: Reading runs

    func view(_ runID: UUID) async throws -> RunView {
        guard let run = try await LogoutRun.find(runID, on: database) else { throw APIError.notFound("logout run") }
        let items = try await LogoutItem.query(on: database).filter(\.$runID == runID).sort(\.$position).all()
        let appIDs = Set(items.map(\.appID))
        let apps = try await RegisteredApp.query(on: database).filter(\.$id ~~ appIDs).all()
        let actions = Dictionary(uniqueKeysWithValues: apps.compactMap { app in app.id.map { ($0, app.logoutAction) } })
        return RunView(
            id: runID, deviceID: run.deviceID, status: run.status, createdAt: run.createdAt, finishedAt: run.finishedAt,
            items: try items.map { item in
                let id = try item.requireID()
                let link = item.status == LogoutItemState.pending.rawValue
                    ? (actions[item.appID] ?? nil).flatMap { try? self.link(action: $0, run: runID, item: id, attempt: item.attempts) }
                    : nil
                return RunView.Item(id: id, appID: item.appID, app: item.appName, position: item.position, status: item.status,
                                    attempts: item.attempts, issuedAt: item.issuedAt, deadlineAt: item.deadlineAt,
                                    finishedAt: item.finishedAt, reportedBy: item.reportedBy, link: link)
            })
    }

    /// The ULC link for one attempt of one item.
    func link(action: String, run: UUID, item: UUID, attempt: Int) throws -> String {
        let nonce = nonces.nonce(item: item, attempt: attempt)
        let base = publicURL.absoluteString + "/ulc/cb/\(run.uuidString.lowercased())/\(item.uuidString.lowercased())"
        return try UniversalLinkCallback(actionText: action, successText: "\(base)/success?n=\(nonce)",
                                         errorText: "\(base)/error?n=\(nonce)").text
    }

    // MARK: Recording callbacks

    /// Records an app's callback, once. `reportedBy` is `browser` for the callback page and
    /// `launcher` when the device reports a callback it received as a universal link.
    func recordCallback(run runID: UUID, item itemID: UUID, outcome: CallbackOutcome, nonce: String,
                        reportedBy: String) async throws -> Recording {
        let now = clock.now()
        let result: Recording = try await database.transaction { db in
            // Lock the run first (a no-op write): two callbacks finishing the last two items of a
            // run then see each other's writes, and exactly one of them finishes the run.
            guard try await Self.lockRun(runID, on: db) else { return .unknown }
            guard let item = try await LogoutItem.find(itemID, on: db), item.runID == runID,
                  nonces.attempt(of: nonce, item: itemID, attempts: item.attempts) != nil else { return .unknown }
            let state = LogoutItemState(rawValue: item.status) ?? .pending
            guard case .finish(let finished) = state.on(.callback(outcome)) else {
                return .alreadyRecorded(app: item.appName, status: state)
            }
            guard let sql = db as? any SQLDatabase else { return .unknown }
            let updated = try await sql.raw("""
                UPDATE logout_items SET status = \(bind: finished.rawValue), finished_at = \(bind: now),
                reported_by = \(bind: reportedBy), version = version + 1
                WHERE id = \(bind: itemID) AND version = \(bind: item.version) AND status = 'pending' RETURNING id
                """).all()
            guard !updated.isEmpty else { return .alreadyRecorded(app: item.appName, status: state) }
            try await finishRunIfDone(runID, on: db, now: now)
            return .recorded(app: item.appName, outcome: outcome)
        }
        switch result {
        case .recorded(_, let outcome):
            metrics.callbacks(outcome.rawValue).increment()
            await changes.runChanged(runID, on: database)
        case .alreadyRecorded:
            metrics.callbacks("replayed").increment()
        case .unknown:
            metrics.callbacks("unknown").increment()
        }
        return result
    }

    /// Takes the run's row lock (PostgreSQL) or the write lock (SQLite); false when there is no such run.
    static func lockRun(_ runID: UUID, on db: Database) async throws -> Bool {
        guard let sql = db as? any SQLDatabase else { return false }
        let rows = try await sql.raw("UPDATE logout_runs SET status = status WHERE id = \(bind: runID) RETURNING id").all()
        return !rows.isEmpty
    }

    /// Marks the run finished when no item is pending, and writes its webhook events.
    func finishRunIfDone(_ runID: UUID, on db: Database, now: Date) async throws {
        // The common case, items still pending, costs one indexed count.
        let pending = try await LogoutItem.query(on: db).filter(\.$runID == runID)
            .filter(\.$status == LogoutItemState.pending.rawValue).count()
        guard pending == 0 else { return }
        let items = try await LogoutItem.query(on: db).filter(\.$runID == runID).all()
        let state = LogoutRunState(items: items.map { LogoutItemState(rawValue: $0.status) ?? .pending })
        guard state != .running, let sql = db as? any SQLDatabase else { return }
        let updated = try await sql.raw("""
            UPDATE logout_runs SET status = \(bind: state.rawValue), finished_at = \(bind: now)
            WHERE id = \(bind: runID) AND status = 'running' RETURNING device_id
            """).all()
        guard let row = updated.first else { return }
        let deviceID = try row.decode(column: "device_id", as: UUID.self)
        let view = try await LogoutRunService(database: db, clock: clock, publicURL: publicURL, nonces: nonces, changes: changes,
                                              metrics: metrics).view(runID)
        if state == .completed {
            metrics.runsFinished("completed").increment()
            try await WebhookOutbox.enqueue("run.completed", run: view, deviceID: deviceID, on: db, now: now)
        } else {
            metrics.runsFinished("failed").increment()
            try await WebhookOutbox.enqueue("run.failed", run: view, deviceID: deviceID, on: db, now: now)
            // Escalation: the device did not sign everyone out, so it leaves service until IT looks at it.
            if let device = try await Device.find(deviceID, on: db) {
                device.status = "out_of_service"
                try await device.save(on: db)
            }
            try await WebhookOutbox.enqueue("device.out_of_service", run: view, deviceID: deviceID, on: db, now: now)
        }
    }
}

extension LogoutRun {
    convenience init(id: UUID, deviceID: UUID, status: LogoutRunState, createdAt: Date) {
        self.init()
        self.id = id
        self.deviceID = deviceID
        self.status = status.rawValue
        self.createdAt = createdAt
    }
}
