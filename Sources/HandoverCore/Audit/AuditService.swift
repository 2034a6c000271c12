import FluentKit
import Foundation
import Logging
import NIOConcurrencyHelpers
import SessionTokens
import SQLKit
import TransparencyLog

/// The audit log's running parts: the checkpoint key, the signing of checkpoints while the log
/// grows, the self-check, and the entry that records the configuration a server started with.
package final class AuditService: Sendable {
    let database: any Database
    /// Where the log is read without holding the writer (SQLite's read connections); `database` otherwise.
    let reads: any Database
    let sealer: SecretSealer
    let origin: String
    let clock: ServerClock
    let metrics: ServerMetrics
    let logger: Logger
    private let key = NIOLockedValueBox<NoteSigningKey?>(nil)
    /// The tree as far as the checkpoints have read it: each reads only what was appended since.
    private let frontier = NIOLockedValueBox(MerkleFrontier())
    /// Where the next self-check reads entries' bytes (each reads a window of them, in turn).
    private let byteCheck = NIOLockedValueBox(0)
    /// The last self-check's finding, so a mismatch raises its webhook once, not every pass.
    private let lastFinding = NIOLockedValueBox<String?>(nil)

    package init(database: any Database, reads: (any Database)? = nil, sealer: SecretSealer, origin: String, clock: ServerClock,
                 metrics: ServerMetrics, logger: Logger) {
        self.database = database
        self.reads = reads ?? database
        self.sealer = sealer
        self.origin = origin
        self.clock = clock
        self.metrics = metrics
        self.logger = logger
    }

    private var sql: any SQLDatabase {
        get throws {
            guard let sql = database as? any SQLDatabase else { throw AuditLogError.noHead }
            return sql
        }
    }

    private var readSQL: any SQLDatabase {
        get throws {
            guard let sql = reads as? any SQLDatabase else { throw AuditLogError.noHead }
            return sql
        }
    }

    /// The checkpoint key, made on first use.
    package func signingKey() async throws -> NoteSigningKey {
        if let key = key.withLockedValue({ $0 }) { return key }
        let loaded = try await AuditCheckpointKey.load(origin: origin, sealer: sealer, on: try sql, now: clock.now())
        key.withLockedValue { $0 = loaded }
        return loaded
    }

    /// The checkpoints' verifier key, as C2SP writes it.
    package func verifierKey() async throws -> NoteVerifierKey { try await signingKey().verifier }

    /// Records the configuration the server starts with (secrets never reach `settings`).
    package func recordStart(settings: [String: String]) async throws {
        let now = clock.now()
        try await AuditTrail.append([AuditEvent(type: "server.started", at: now, actor: .server, detail: settings)], on: database, now: now)
    }

    /// Signs a checkpoint when the log grew since the last one.
    @discardableResult
    package func checkpoint() async throws -> AuditLog.StoredCheckpoint? {
        var read = frontier.withLockedValue { $0 }
        let signed = try await AuditLog(sql: try sql).signCheckpoint(with: try await signingKey(), reading: AuditLog(sql: try readSQL),
                                                                     frontier: &read, now: clock.now())
        frontier.withLockedValue { if read.size > $0.size { $0 = read } }
        if let signed { metrics.auditCheckpointSize.set(Double(signed.size)) }
        return signed
    }

    /// Compares the stored log with its latest checkpoint (``AuditLog/selfCheck(key:bytesFrom:window:)``:
    /// every leaf hash against the signed root, and the next window of entries' bytes). A new
    /// mismatch is logged, counted and sent to the webhooks that subscribe to `audit.mismatch`;
    /// returns the finding.
    @discardableResult
    package func selfCheck() async throws -> String? {
        let check = try await AuditLog(sql: try readSQL).selfCheck(key: try await verifierKey(), bytesFrom: byteCheck.withLockedValue { $0 })
        byteCheck.withLockedValue { $0 = check.nextByteCheck }
        let finding = check.finding
        metrics.auditSelfChecks(finding == nil ? "ok" : "mismatch").increment()
        let isNew = lastFinding.withLockedValue { last in
            defer { last = finding }
            return finding != nil && finding != last
        }
        if let finding, isNew {
            logger.critical("audit log self-check failed", metadata: ["finding": "\(finding)"])
            try await WebhookOutbox.enqueue("audit.mismatch", run: nil, deviceID: nil, reason: finding, on: database, now: clock.now())
        }
        return finding
    }
}
