import Foundation
import HandoverConfiguration
import HandoverCore
import Logging
import TransparencyLog

/// `handover audit export` and `acknowledge`: the audit log, from the server's machine.
extension HandoverServer {
    /// The entries written from `from` to `to` (all of them by default), of one site's devices
    /// with `site`; JSON lines (`index`, `leaf` as base64 of the exact bytes hashed, `leafHash`,
    /// `entry` decoded), or CSV for people.
    public static func auditExport(_ configuration: ServerConfiguration, from: Date?, to: Date?, site: String?, csv: Bool,
                                   logger: Logger = Logger(label: "handover")) async throws -> AuditExport {
        try await withOfflineDatabase(configuration, logger: logger) { databases in
            try await AuditExport.read(from: databases, from: from, to: to, site: site, csv: csv)
        }
    }

    /// What `handover audit acknowledge` did.
    public struct AuditAcknowledged: Sendable {
        /// The alarms acknowledged, each its finding.
        public var findings: [String]
        /// The new epoch's first checkpoint (its signed note), when the history was acknowledged.
        public var checkpoint: String?
        /// The entries whose stored leaf hash was made the hash of their bytes.
        public var rehashed: [Int]
    }

    /// Acknowledges the audit log's open alarms (`handover audit acknowledge`), on the server's
    /// machine: it needs the server's encryption key, which unseals the log's key, to sign the
    /// new epoch's checkpoint. The server may be running. Never makes a key.
    ///
    /// - Throws: `ConfigurationError` when the encryption key or the log's key is missing; the
    ///   domain's refusals (no open alarm, an entry missing, an operator or reason not accepted)
    ///   as ``AuditAcknowledgementRefusal``.
    public static func acknowledgeAuditAlarms(_ configuration: ServerConfiguration, operatorName: String, reason: String, now: Date = Date(),
                                              logger: Logger = Logger(label: "handover")) async throws -> AuditAcknowledged {
        let keyFile = configuration.dataDirectory.appendingPathComponent(EncryptionKeyFile.fileName)
        guard configuration.sessions.encryptionKeyBase64 != nil || FileManager.default.fileExists(atPath: keyFile.path) else {
            throw ConfigurationError(setting: "HANDOVER_TOKEN_ENCRYPTION_KEY", problem: "is not set, and \(keyFile.path) does not exist",
                                     accepted: "the server's own key: run this where the server runs, with its --data-dir or its environment")
        }
        let sealer = try EncryptionKeyFile.sealer(configured: configuration.sessions.encryptionKeyBase64, dataDirectory: configuration.dataDirectory)
        return try await withOfflineDatabase(configuration, logger: logger) { databases in
            let sql = try databases.sql()
            guard let key = try await AuditCheckpointKey.stored(sealer: sealer, on: sql) else {
                throw ConfigurationError(setting: "--data-dir", problem: "this database's audit log has no key yet", accepted: "the server's database")
            }
            do {
                let done = try await AuditAcknowledgement.acknowledge(operatorName: operatorName, reason: reason, key: key, database: databases.primary, now: now)
                return AuditAcknowledged(findings: done.alarms.map(\.finding), checkpoint: done.checkpoint?.note, rehashed: done.rehashed)
            } catch let error as DomainError {
                throw AuditAcknowledgementRefusal(description: error.reason)
            }
        }
    }
}
