import Foundation
import Logging
import NIOConcurrencyHelpers
import Prometheus
import SessionTokens
import TransparencyLog

/// The audit log's running parts: the checkpoint key, the signing of checkpoints while the log
/// grows (never over a broken history: ``CheckpointSigning``), the self-check, the alarms, and the
/// entry that records the configuration a server started with.
package final class AuditService: Sendable {
    let database: DatabaseHandle
    /// Where the log is read without holding the writer (SQLite's read connections); `database` otherwise.
    let reads: DatabaseHandle
    let sealer: SecretSealer
    let origin: String
    let clock: ServerClock
    let metrics: ServerMetrics
    let logger: Logger
    private let key = NIOLockedValueBox<NoteSigningKey?>(nil)
    /// The tree as this instance verified it at the latest checkpoint: the base of the next one,
    /// which then reads only what was appended since.
    private let frontier = NIOLockedValueBox(MerkleFrontier())
    /// Where the next self-check reads entries' bytes (each reads a window of them, in turn).
    private let byteCheck = NIOLockedValueBox(0)
    /// Where the next self-check compares runs with their receipts (a window a pass, in turn).
    private let outcomeCheck = NIOLockedValueBox(0)
    /// The open alarms as last read (the dashboard's banner reads this, not the database), and
    /// whether this process has logged them yet.
    private let alarms = NIOLockedValueBox<(open: [AuditAlarms.Alarm], logged: Set<UUID>)>(([], []))

    package init(database: DatabaseHandle, reads: DatabaseHandle? = nil, sealer: SecretSealer, origin: String, clock: ServerClock,
                 metrics: ServerMetrics, logger: Logger) {
        self.database = database
        self.reads = reads ?? database
        self.sealer = sealer
        self.origin = origin
        self.clock = clock
        self.metrics = metrics
        self.logger = logger
    }

    /// The audit statements on the writer.
    private var store: AuditStore {
        get throws {
            guard let store = AuditStore(database) else { throw AuditLogError.noHead }
            return store
        }
    }

    /// The audit statements on `reads`.
    private var readStore: AuditStore {
        get throws {
            guard let store = AuditStore(reads) else { throw AuditLogError.noHead }
            return store
        }
    }

    /// The checkpoint key, made on first use.
    package func signingKey() async throws -> NoteSigningKey {
        if let key = key.withLockedValue({ $0 }) { return key }
        let loaded = try await store.signingKey(origin: origin, sealer: sealer, now: clock.now())
        key.withLockedValue { $0 = loaded }
        return loaded
    }

    /// The checkpoints' verifier key, as C2SP writes it.
    package func verifierKey() async throws -> NoteVerifierKey { try await signingKey().verifier }

    /// Records the configuration the server starts with (secrets never reach `settings`), and
    /// reads the open alarms, so that the gauge and the banner say them from the start.
    package func recordStart(settings: [String: String]) async throws {
        let now = clock.now()
        try await AuditTrail.append([AuditEvent(type: "server.started", at: now, actor: .server, detail: settings)], on: database, now: now)
        try await refreshAlarms()
    }

    // MARK: Checkpoints

    /// Signs a checkpoint when the log grew since the last one, after proving it consistent
    /// with that one (``CheckpointSigning``). Signs nothing while an alarm about the history is
    /// open; raises one when the proof fails.
    @discardableResult
    package func checkpoint() async throws -> AuditLog.StoredCheckpoint? {
        let open = try await refreshAlarms()
        guard !open.contains(where: { $0.kind == .history }) else { return nil }
        let signing = CheckpointSigning(database: database, reads: try readStore.log, key: try await signingKey())
        switch try await signing.sign(trusted: frontier.withLockedValue { $0 }, now: clock.now()) {
        case .nothingNew(let tree):
            keep(tree)
            return nil
        case .signed(let checkpoint, let tree):
            keep(tree)
            metrics.auditCheckpointSize.set(Double(checkpoint.size))
            return checkpoint
        case .refused(let finding):
            try await raise(.history, finding)
            return nil
        }
    }

    /// Keeps `tree` as the base of the next checkpoint, unless another pass kept a larger one.
    private func keep(_ tree: MerkleFrontier) {
        frontier.withLockedValue { if tree.size >= $0.size { $0 = tree } }
    }

    // MARK: The self-check

    /// Compares the stored log with its latest checkpoint (``AuditLog/selfCheck(key:bytesFrom:window:)``:
    /// every leaf hash against the signed root, and the next window of entries' bytes), and the
    /// next window of runs with their receipts (``RunOutcomeCheck``). A finding raises an alarm
    /// (``raise(_:_:)``); returns the first finding.
    @discardableResult
    package func selfCheck() async throws -> String? {
        let check = try await readStore.log.selfCheck(key: try await verifierKey(), bytesFrom: byteCheck.withLockedValue { $0 })
        byteCheck.withLockedValue { $0 = check.nextByteCheck }
        if let finding = check.finding { try await raise(.history, finding) }
        let outcomes = try await RunOutcomeCheck(store: try readStore).check(from: outcomeCheck.withLockedValue { $0 })
        outcomeCheck.withLockedValue { $0 = outcomes.next }
        if let finding = outcomes.finding { try await raise(.records, finding) }
        let finding = check.finding ?? outcomes.finding
        metrics.auditSelfChecks(finding == nil ? "ok" : "mismatch").increment()
        try await refreshAlarms()
        return finding
    }

    // MARK: Alarms

    /// The open alarms as last read: the dashboard's banner.
    package var openAlarms: [AuditAlarms.Alarm] { alarms.withLockedValue { $0.open } }

    /// Reads the open alarms again (each pass does, and the start), sets
    /// `handover_audit_integrity_failed`, and logs each alarm once a process.
    @discardableResult
    package func refreshAlarms() async throws -> [AuditAlarms.Alarm] {
        let open = try await readStore.openAlarms()
        let unlogged = alarms.withLockedValue { state in
            state.open = open
            let new = open.filter { !state.logged.contains($0.id) }
            state.logged.formUnion(new.map(\.id))
            return new
        }
        metrics.auditIntegrityFailed.set(to: open.isEmpty ? 0.0 : 1.0)
        for alarm in unlogged {
            logger.error("the audit log's alarm is open: \(alarm.kind == .history ? "no checkpoint is signed" : "checkpoints go on") until an operator acknowledges it (handover audit acknowledge)",
                         metadata: ["finding": "\(alarm.finding)", "raised": "\(alarm.raisedAt)"])
        }
        return open
    }

    /// Records a finding as an alarm, once while it is open: in one transaction, the alarm's row,
    /// an `audit.alarm` entry of the log (which the SIEMs receive, at severity critical), and the
    /// `audit.mismatch` webhook; then logs it as critical.
    private func raise(_ kind: AuditAlarms.Kind, _ finding: String) async throws {
        let now = clock.now()
        let raised = try await database.inTransaction { db -> AuditAlarms.Alarm? in
            guard let store = AuditStore(db), let alarm = try await store.raiseAlarm(kind, finding, now: now) else { return nil }
            try await store.append([AuditEvent(type: AuditEvent.alarmType, at: now, actor: .server,
                                               detail: ["kind": kind.rawValue, "finding": alarm.finding])], now: now)
            try await WebhookOutbox.enqueue("audit.mismatch", run: nil, deviceID: nil, reason: alarm.finding, on: db, now: now)
            return alarm
        }
        guard let raised else { return }
        alarms.withLockedValue { state in
            state.open.append(raised)
            state.logged.insert(raised.id)
        }
        metrics.auditIntegrityFailed.set(to: 1.0)
        logger.critical("audit log integrity check failed: \(kind == .history ? "no checkpoint is signed" : "checkpoints go on") until an operator acknowledges it (handover audit acknowledge)",
                        metadata: ["finding": "\(raised.finding)"])
    }
}
