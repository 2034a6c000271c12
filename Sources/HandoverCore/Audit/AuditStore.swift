import Crypto
import Foundation
import HandoverProtocol
import SessionTokens
import SQLKit
import TransparencyLog

/// The audit area's statements besides the log's reads (``AuditLog``) and appends
/// (``AuditTrail``): the alarms, the checkpoint key, the checkpoints written, the entries an
/// acknowledgement re-hashes, and what the receipts and the self-check read of the runs. The
/// area's services (``AuditService``, ``CheckpointSigning``, ``AuditAcknowledgement``,
/// ``RunReceipts``, ``RunOutcomeCheck``) hold a store, in their transaction where they have one.
package struct AuditStore: Sendable {
    let sql: any SQLDatabase

    package init(sql: any SQLDatabase) {
        self.sql = sql
    }

    /// The store on `database`; nil where it does not speak SQL (the audit log needs it).
    package init?(_ database: DatabaseHandle) {
        guard let sql = database as? any SQLDatabase else { return nil }
        self.sql = sql
    }

    /// The log as stored, read through this store's database.
    package var log: AuditLog { AuditLog(sql: sql) }

    /// Appends `events` to the log (``AuditTrail``), in the caller's transaction.
    @discardableResult
    package func append(_ events: [AuditEvent], now: Date) async throws -> Int {
        try await AuditTrail.append(events, on: sql, now: now)
    }

    // MARK: The checkpoint key

    /// Reads the checkpoint key, or writes a new one when there is none (``AuditCheckpointKey/load(origin:sealer:on:now:)``).
    package func signingKey(origin: String, sealer: SecretSealer, now: Date) async throws -> NoteSigningKey {
        try await AuditCheckpointKey.load(origin: origin, sealer: sealer, on: sql, now: now)
    }

    // MARK: Alarms

    /// Reads the open alarms (``AuditAlarms/open(on:)``).
    package func openAlarms() async throws -> [AuditAlarms.Alarm] {
        try await AuditAlarms.open(on: sql)
    }

    /// Writes an alarm unless one says it already (``AuditAlarms/raise(_:_:on:now:)``).
    package func raiseAlarm(_ kind: AuditAlarms.Kind, _ finding: String, now: Date) async throws -> AuditAlarms.Alarm? {
        try await AuditAlarms.raise(kind, finding, on: sql, now: now)
    }

    /// Marks the open alarms acknowledged (``AuditAlarms/acknowledge(by:reason:on:now:)``).
    package func acknowledgeAlarms(by operatorName: String, reason: String, now: Date) async throws -> [AuditAlarms.Alarm] {
        try await AuditAlarms.acknowledge(by: operatorName, reason: reason, on: sql, now: now)
    }

    // MARK: Checkpoints

    /// Inserts a signed checkpoint unless one of its size is stored; whether it was inserted.
    package func insertCheckpoint(_ checkpoint: Checkpoint, note: String, now: Date) async throws -> Bool {
        let inserted = try await sql.raw("""
            INSERT INTO audit_checkpoints (size, root_hash, note, created_at)
            VALUES (\(bind: checkpoint.size), \(bind: Data(checkpoint.rootHash.bytes)), \(bind: note), \(bind: now))
            ON CONFLICT DO NOTHING RETURNING size
            """).first()
        return inserted != nil
    }

    /// Inserts the signed checkpoint that starts an epoch, of `size` entries whose root is `rootHash`.
    package func insertEpochCheckpoint(size end: Int, rootHash: MerkleHash, note: String, now: Date) async throws {
        try await sql.raw("""
            INSERT INTO audit_checkpoints (size, root_hash, note, created_at)
            VALUES (\(bind: end), \(bind: Data(rootHash.bytes)), \(bind: note), \(bind: now))
            """).run()
    }

    /// Writes `hash` as the stored leaf hash of entry `index`.
    package func rehash(entry index: Int, to hash: MerkleHash) async throws {
        try await sql.raw("""
            UPDATE audit_entries SET leaf_hash = \(bind: Data(hash.bytes)) WHERE seq = \(bind: index)
            """).run()
    }

    // MARK: What the receipts and the self-check read

    /// The facts a batch of receipts reads besides the runs: the devices, the custodies their
    /// runs checked in, whether any run owed a backend a logout token, and the MDM commands.
    package struct ReceiptFacts: Sendable {
        package var devices: [UUID: RunReceipt.Device] = [:]
        package var holders: [UUID: RunReceipt.Holder] = [:]
        package var owed = false
        package var commands: [UUID: RunReceipt.MDMCommand] = [:]
        /// Whether any webhook is registered, asked in the same statement (the conclusion's webhook
        /// events need not count them again); nil when the statement returned no row.
        package var webhooksRegistered: Bool?
    }

    /// Reads the devices of `finished`, each with the custody its run checked in (holders named
    /// by `issuer`), whether any run owed a backend a logout token and whether any webhook is
    /// registered (one statement), and, when a run failed, the MDM commands its device step
    /// queued at `now`.
    package func receiptFacts(for finished: [FinishedRun], issuer: String, now: Date) async throws -> ReceiptFacts {
        let runs = finished.map(\.run)
        let runList = SQLList(runs.map { SQLBind($0) })
        let deviceList = SQLList(Set(finished.map(\.device)).map { SQLBind($0) })
        var facts = ReceiptFacts()
        // The devices, each with the custody its run checked in (through the device index).
        // Whether any of the runs owed a backend a logout token, asked in the same statement.
        for row in try await sql.raw("""
            SELECT d.id, d.name, d.site, c.run_id, c.user_id, c.checked_out_at, c.checked_out_by,
            EXISTS (SELECT 1 FROM backchannel_logout_deliveries WHERE run_id IN (\(runList))) AS owed,
            EXISTS (SELECT 1 FROM webhooks) AS hooked
            FROM devices d LEFT JOIN custodies c ON c.device_id = d.id AND c.run_id IN (\(runList)) WHERE d.id IN (\(deviceList))
            """).all() {
            let id = try row.decode(column: "id", as: UUID.self)
            facts.owed = try row.decode(column: "owed", as: Bool.self)
            facts.webhooksRegistered = try row.decode(column: "hooked", as: Bool.self)
            facts.devices[id] = .init(id: id, name: try row.decode(column: "name", as: String.self), site: try row.decode(column: "site", as: String?.self))
            if let run = try row.decode(column: "run_id", as: UUID?.self) {
                facts.holders[run] = .init(iss: issuer, sub: try row.decode(column: "user_id", as: UUID.self).uuidString,
                                           checkedOutAt: RunReceipt.timestamp(try row.decode(column: "checked_out_at", as: Date.self)),
                                           checkedOutBy: try row.decode(column: "checked_out_by", as: String.self))
            }
        }
        // The command a failed run's device step queued, written at `now` in this transaction.
        if finished.contains(where: { $0.state == .failed }) {
            for row in try await sql.raw("""
                SELECT device_id, action, connector, status FROM mdm_commands WHERE device_id IN (\(deviceList)) AND created_at = \(bind: now)
                """).all() {
                facts.commands[try row.decode(column: "device_id", as: UUID.self)] = .init(
                    action: try row.decode(column: "action", as: MDMAction.self), connector: try row.decode(column: "connector", as: String.self),
                    status: try row.decode(column: "status", as: MDMCommandState.self))
            }
        }
        return facts
    }

    /// Reads up to `limit` `run.receipt` entries of the log from `start`, in order: each one's
    /// index and bytes (nil when they cannot be read).
    package func receiptEntries(from start: Int, limit: Int) async throws -> [(seq: Int, leaf: Data?)] {
        try await sql.raw("""
            SELECT seq, leaf FROM audit_entries WHERE type = \(literal: AuditEvent.receiptType) AND seq >= \(bind: start)
            ORDER BY seq LIMIT \(literal: limit)
            """).all().map { row in
            (seq: try row.decode(column: "seq", as: Int.self), leaf: try? row.decode(column: "leaf", as: Data.self))
        }
    }

    /// Reads the runs `ids` as stored: each one's status (`logout_runs`) and its apps' items'
    /// statuses (`logout_items`); a run gone from `logout_runs` with items left has no status.
    package func storedRuns(_ ids: [UUID]) async throws -> [UUID: RunOutcomeCheck.StoredRun] {
        var stored: [UUID: RunOutcomeCheck.StoredRun] = [:]
        for row in try await sql.raw("SELECT id, status FROM logout_runs WHERE id IN (\(binds: ids))").all() {
            stored[try row.decode(column: "id", as: UUID.self)] = RunOutcomeCheck.StoredRun(status: try row.decode(column: "status", as: String.self), items: [:])
        }
        for row in try await sql.raw("SELECT run_id, app_id, status FROM logout_items WHERE run_id IN (\(binds: ids))").all() {
            let run = try row.decode(column: "run_id", as: UUID.self)
            stored[run, default: RunOutcomeCheck.StoredRun(status: nil, items: [:])].items[try row.decode(column: "app_id", as: UUID.self)] =
                try row.decode(column: "status", as: String.self)
        }
        return stored
    }
}

// MARK: The statements other modules call on an SQL database

extension AuditAlarms {
    /// The alarms no operator has acknowledged yet, oldest first.
    package static func open(on sql: any SQLDatabase) async throws -> [Alarm] {
        try await sql.raw("""
            SELECT id, kind, finding, raised_at FROM audit_alarms WHERE acknowledged_at IS NULL ORDER BY raised_at, id
            """).all().map { row in
            Alarm(id: try row.decode(column: "id", as: UUID.self), kind: Kind(rawValue: try row.decode(column: "kind", as: String.self)) ?? .history,
                  finding: try row.decode(column: "finding", as: String.self), raisedAt: try row.decode(column: "raised_at", as: Date.self))
        }
    }

    /// Records `finding`, unless an open alarm already says it (the checks repeat it on every pass
    /// until it is mended or acknowledged), or it is about records and was acknowledged once (the
    /// operator accepted that row as it is); returns the new alarm, or nil. A finding about the
    /// history after an acknowledgement is new: the epoch began with the log as it then stood.
    package static func raise(_ kind: Kind, _ finding: String, on sql: any SQLDatabase, now: Date) async throws -> Alarm? {
        let alarm = Alarm(id: UUID(), kind: kind, finding: String(finding.prefix(findingLength)), raisedAt: now)
        let inserted = try await sql.raw("""
            INSERT INTO audit_alarms (id, kind, finding, raised_at)
            SELECT \(bind: alarm.id), \(bind: kind.rawValue), \(bind: alarm.finding), \(bind: now)
            WHERE NOT EXISTS (SELECT 1 FROM audit_alarms WHERE finding = \(bind: alarm.finding)
                              AND (acknowledged_at IS NULL OR kind = \(literal: Kind.records.rawValue)))
            ON CONFLICT DO NOTHING RETURNING id
            """).first()
        return inserted == nil ? nil : alarm
    }

    /// Marks every open alarm acknowledged by `operatorName` for `reason`; returns them.
    package static func acknowledge(by operatorName: String, reason: String, on sql: any SQLDatabase, now: Date) async throws -> [Alarm] {
        let alarms = try await open(on: sql)
        guard !alarms.isEmpty else { return [] }
        try await sql.raw("""
            UPDATE audit_alarms SET acknowledged_at = \(bind: now), acknowledged_by = \(bind: operatorName), acknowledgement = \(bind: reason)
            WHERE acknowledged_at IS NULL AND id IN (\(binds: alarms.map(\.id)))
            """).run()
        return alarms
    }
}

extension AuditCheckpointKey {
    /// The key, made and stored when there is none yet.
    package static func load(origin: String, sealer: SecretSealer, on sql: any SQLDatabase, now: Date) async throws -> NoteSigningKey {
        if let key = try await stored(sealer: sealer, on: sql) { return key }
        let key = try NoteSigningKey(name: origin, privateKey: Curve25519.Signing.PrivateKey())
        try await sql.raw("""
            INSERT INTO audit_keys (name, sealed_private_key, verifier, created_at)
            VALUES (\(bind: origin), \(bind: try sealer.seal(key.privateKey.rawRepresentation)), \(bind: key.verifier.description),
                    \(bind: now)) ON CONFLICT DO NOTHING
            """).run()
        // Another instance may have made one first: the stored key wins.
        guard let stored = try await stored(sealer: sealer, on: sql) else { throw AuditLogError.noHead }
        return stored
    }

    /// The stored key, or nil before the first checkpoint (never made here: `handover audit
    /// acknowledge` signs with the log's own key or not at all).
    package static func stored(sealer: SecretSealer, on sql: any SQLDatabase) async throws -> NoteSigningKey? {
        guard let row = try await sql.raw("SELECT name, sealed_private_key FROM audit_keys ORDER BY created_at LIMIT 1").first() else {
            return nil
        }
        let raw = try sealer.open(try row.decode(column: "sealed_private_key", as: String.self))
        return try NoteSigningKey(name: try row.decode(column: "name", as: String.self),
                                  privateKey: try Curve25519.Signing.PrivateKey(rawRepresentation: raw))
    }

    /// The verifier key stored beside the sealed one, or nil before the first checkpoint.
    package static func verifier(on sql: any SQLDatabase) async throws -> String? {
        try await sql.raw("SELECT verifier FROM audit_keys ORDER BY created_at LIMIT 1").first()?.decode(column: "verifier", as: String.self)
    }
}

extension RunReceipts {
    /// A run's receipt, as it was signed when the run ended; nil before it ended (or for a run
    /// that ended before receipts existed).
    package static func receipt(of run: UUID, on sql: any SQLDatabase) async throws -> String? {
        guard let row = try await sql.raw("""
            SELECT leaf FROM audit_entries WHERE run_id = \(bind: run) AND type = \(literal: AuditEvent.receiptType)
            """).first() else { return nil }
        return try AuditEvent.decode(leaf: try row.decode(column: "leaf", as: Data.self)).receipt
    }
}
