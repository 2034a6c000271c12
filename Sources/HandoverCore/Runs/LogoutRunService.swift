import Foundation
import HandoverProtocol
import HandoverSchema
import LinkCallbacks

/// Creates logout runs, records callbacks, and finishes runs: every change in one transaction,
/// with its webhook events written to the outbox in that same transaction. The service decides;
/// its statements are the runs' store's (``LogoutRunRows``, ``LogoutItemTransitions``).
package struct LogoutRunService: Sendable {
    /// The service on a given database (a request's, or a background pass's), as the server
    /// builds it once and its routes call it; the edge names this type, not the database's.
    package typealias OnDatabase = @Sendable (DatabaseHandle) -> LogoutRunService

    package let database: DatabaseHandle
    package let clock: ServerClock
    package let publicURL: URL
    package let nonces: CallbackNonce
    package let changes: RunChangeNotifier
    package let metrics: ServerMetrics
    /// What the fleet's MDM is asked when a device goes out of service or overdue; nil: nothing.
    package let mdm: MDMPolicy?
    /// What else ends when a run starts, in the run's own transaction (the server's sessions,
    /// pushes and backend-only apps: ``HandOverSteps``); nil: the run alone.
    package let handOver: (any HandOverSteps)?
    /// Signs each finished run's receipt into the audit log; nil: no receipts (the domain's own tests).
    package let receipts: RunReceipts?
    /// The device of each run, remembered (the server's one, shared by every request); nil:
    /// ``deviceOfRun(_:)`` reads it each time.
    package let runDevices: RunDevices?
    /// The callbacks this instance received and has not yet committed (the server's one, shared
    /// by the group commit and the deadline scheduler); nil: the scheduler knows of none.
    package let uncommittedCallbacks: UncommittedCallbacks?
    /// The instance's admission control, told the callbacks each run started owes and each one
    /// recorded (``AdmissionGate``); nil: admission control is off.
    package let admission: AdmissionGate?

    /// A runs service with every collaborator named: each optional one is given, even as nil,
    /// so none is left out by forgetting it.
    package init(database: DatabaseHandle, clock: ServerClock, publicURL: URL, nonces: CallbackNonce, changes: RunChangeNotifier,
                 metrics: ServerMetrics, mdm: MDMPolicy?, handOver: (any HandOverSteps)?, receipts: RunReceipts?,
                 runDevices: RunDevices?, uncommittedCallbacks: UncommittedCallbacks?, admission: AdmissionGate?) {
        self.database = database
        self.clock = clock
        self.publicURL = publicURL
        self.nonces = nonces
        self.changes = changes
        self.metrics = metrics
        self.mdm = mdm
        self.handOver = handOver
        self.receipts = receipts
        self.runDevices = runDevices
        self.uncommittedCallbacks = uncommittedCallbacks
        self.admission = admission
    }

    /// The same service with its hand-over steps replaced (`nil`: the run alone); what
    /// ``HandOverSignOut`` settles backend-only items with, and the tests' failing steps.
    package func handingOver(with steps: (any HandOverSteps)?) -> LogoutRunService {
        LogoutRunService(database: database, clock: clock, publicURL: publicURL, nonces: nonces, changes: changes, metrics: metrics,
                         mdm: mdm, handOver: steps, receipts: receipts, runDevices: runDevices, uncommittedCallbacks: uncommittedCallbacks,
                         admission: admission)
    }

    /// What recording a callback did.
    package enum Recording: Equatable {
        case recorded(app: String, outcome: CallbackOutcome)
        /// The item already has an outcome: nothing was recorded.
        case alreadyRecorded(app: String, status: LogoutItemState)
        /// No such run or item, or the nonce was not issued for it.
        case unknown
    }

    /// Whether the device exists (one read by primary key).
    package func deviceExists(_ deviceID: UUID) async throws -> Bool {
        try await LogoutRunRows(database).deviceExists(deviceID)
    }

    /// The device a run belongs to, if the run exists: from ``runDevices`` when remembered,
    /// else one read by primary key (then remembered).
    package func deviceOfRun(_ runID: UUID) async throws -> UUID? {
        if let device = runDevices?.device(of: runID) { return device }
        let device = try await LogoutRunRows(database).device(ofRun: runID)
        if let device { runDevices?.remember(run: runID, device: device) }
        return device
    }

    /// The run with its items, and the link of each pending item's current attempt. An item's
    /// deadline is the one the scheduler fires by (``TurnDeadline``): a first link's counts from
    /// its turn.
    package func view(_ runID: UUID) async throws -> LogoutRunView {
        let rows = try LogoutRunRows(database)
        guard let run = try await rows.run(runID) else { throw DomainError.notFound("logout run") }
        let items = try await rows.items(run: runID)
        // Only pending items show a link: only their apps are read.
        let apps = try await rows.apps(withIDs: Set(items.filter { $0.view.status == .pending }.map(\.view.appID)))
        return LogoutRunView(
            id: runID, deviceID: run.deviceID, status: run.status, createdAt: run.createdAt, finishedAt: run.finishedAt,
            items: items.map { row in
                var item = row.view
                item.deadlineAt = TurnDeadline.deadline(of: row, in: items)
                if item.status == .pending {
                    item.link = apps[item.appID].flatMap { try? self.link(for: $0, run: runID, item: item.id, attempt: item.attempts) }
                }
                return item
            })
    }

    /// The link to open for one attempt of one item, by the app's logout method: a ULC, an
    /// x-callback-url whose x-success, x-error and x-cancel are the callback URLs, or nothing
    /// (backend-only: the backend's logout token ends it).
    package func link(for app: RunApp, run: UUID, item: UUID, attempt: Int) throws -> String? {
        guard let action = app.logoutAction else { return nil }
        switch app.logoutMethod ?? .ulc {
        case .ulc:
            return try link(action: action, run: run, item: item, attempt: attempt)
        case .xCallback:
            let nonce = nonces.nonce(item: item, attempt: attempt)
            var request = try XCallbackRequest(parsing: action)
            request.source = "Handover"
            request.success = URL(string: CallbackURL(run: run, item: item, outcome: .success, nonce: nonce).text(base: publicURL))
            let error = URL(string: CallbackURL(run: run, item: item, outcome: .error, nonce: nonce).text(base: publicURL))
            request.error = error
            request.cancel = error
            return request.text
        case .backendOnly:
            return nil
        }
    }

    /// The ULC link for one attempt of one item.
    package func link(action: String, run: UUID, item: UUID, attempt: Int) throws -> String {
        let nonce = nonces.nonce(item: item, attempt: attempt)
        // The callbacks are this server's own URLs, in the form a ULC keeps: only the action needs checking, once.
        return try ULCActionCache.shared.action(action).linkText(
            success: CallbackURL(run: run, item: item, outcome: .success, nonce: nonce).text(base: publicURL),
            error: CallbackURL(run: run, item: item, outcome: .error, nonce: nonce).text(base: publicURL))
    }

    /// Marks the run finished when no item is pending. Returns the finished run, or nil; the
    /// caller concludes it (``conclude(_:on:now:)``: its device's step, its receipt, its webhook
    /// events) last in its transaction, and counts it once the transaction committed.
    ///
    /// - Parameter nonePending: the caller already counted no pending item (the callback fast
    ///   path's statement, or a batch's count of its runs), so the count is not taken again; the
    ///   items read below decide all the same.
    package func finishRunIfDone(_ runID: UUID, on db: DatabaseHandle, now: Date, nonePending: Bool = false) async throws -> FinishedRun? {
        let rows = try LogoutRunRows(db)
        // The common case, items still pending, costs one indexed count.
        if !nonePending {
            let pending = try await LogoutItemTransitions(rows).pendingCount(run: runID)
            guard pending == 0 else { return nil }
        }
        return try await finishRuns([(runID, now)], on: rows).first
    }

    /// Marks finished each of `runs` that has no pending item (the caller counted none pending,
    /// or will let the items read here decide), at its own time: their items in one read, the
    /// runs in one `UPDATE … FROM (VALUES …)` (``LogoutRunRows/finish(_:)``). Returns the runs this
    /// call finished, in the order given; the caller concludes them.
    package func finishRuns(_ runs: [(run: UUID, at: Date)], on rows: LogoutRunRows) async throws -> [FinishedRun] {
        guard !runs.isEmpty else { return [] }
        let stored = try await rows.items(runs: runs.map(\.run))
        var ending: [(run: UUID, at: Date, state: LogoutRunState, items: [LogoutRunRows.Item])] = []
        for (run, at) in runs {
            guard let items = stored[run] else { continue }
            let state = LogoutRunState(items: items.map(\.view.status))
            if state != .running { ending.append((run, at, state, items)) }
        }
        guard !ending.isEmpty else { return [] }
        let finished = try await rows.finish(ending)
        return ending.compactMap { run, at, state, stored in
            guard let row = finished[run] else { return nil }
            let items = stored.map(\.view)
            // The finished run as the webhooks show it (no links: nothing is pending), built from what was read.
            let view = LogoutRunView(id: run, deviceID: row.device, status: state, createdAt: row.createdAt, finishedAt: at, items: items)
            // A failed run's device did not sign everyone out: it leaves service until IT looks at it.
            return FinishedRun(run: run, device: row.device, state: state, reason: state == .completed ? nil : Self.failureReason(items), view: view,
                               methods: Dictionary(stored.compactMap { item in item.method.map { (item.view.id, $0) } }) { first, _ in first })
        }
    }

    /// Concludes runs that just finished, last in their transaction: their devices move (in id
    /// order, ``DeviceLifeCycle/moveDevices(after:mdm:on:now:)``), each gets its signed receipt in
    /// the audit log (when ``receipts`` is set), and each its webhook events, the receipt
    /// included: `run.completed`, or `run.failed` and `device.out_of_service`.
    package func conclude(_ finished: [FinishedRun], on db: DatabaseHandle, now: Date) async throws {
        guard !finished.isEmpty else { return }
        // The devices' steps and the receipts go to the audit log in one append.
        let issued = try await AuditTrail.batch(on: db, now: now) {
            try await DeviceLifeCycle.moveDevices(after: finished, mdm: mdm, on: db, now: now)
            return try await receipts?.issue(for: finished, on: db, now: now) ?? RunReceipts.Issued()
        }
        // Their webhook events in one write (the receipts' read said whether any webhook is registered).
        try await WebhookOutbox.enqueue(finished.flatMap { run -> [WebhookOutbox.Event] in
            let at = run.view.finishedAt ?? now, receipt = issued.signed[run.run]
            if run.state == .completed {
                return [.init("run.completed", run: run.view, deviceID: run.device, receipt: receipt, at: at)]
            }
            return [.init("run.failed", run: run.view, deviceID: run.device, receipt: receipt, at: at),
                    .init("device.out_of_service", run: run.view, deviceID: run.device, reason: run.reason, at: at)]
        }, on: db, webhooksRegistered: issued.webhooksRegistered)
    }
}

/// A run that just finished, whose device's life cycle moves with it.
package struct FinishedRun: Sendable, Equatable {
    package var run: UUID
    package var device: UUID
    package var state: LogoutRunState
    /// Which apps stayed signed in, for a failed run.
    package var reason: String?
    /// The run as it finished (no links: nothing is pending).
    package var view: LogoutRunView
    /// Each item's logout method, by item id, for its receipt.
    package var methods: [UUID: LogoutMethod] = [:]
}

extension LogoutRunService {
    /// How long a backend-only item waits for its Back-Channel Logout token to be delivered.
    package static let backendOnlyDeadline: TimeInterval = 300

    /// Which apps stayed signed in: `Mail timed out, Notes failed`.
    static func failureReason(_ items: [LogoutRunView.Item]) -> String {
        let failed = items.sorted { $0.position < $1.position }.filter { $0.status != .succeeded }
        return failed.map { "\($0.app) \($0.status.rawValue.replacingOccurrences(of: "_", with: " "))" }.joined(separator: ", ")
    }
}

extension LogoutRun {
    package convenience init(id: UUID, deviceID: UUID, status: LogoutRunState, createdAt: Date) {
        self.init()
        self.id = id
        self.deviceID = deviceID
        self.status = status
        self.createdAt = createdAt
    }
}
