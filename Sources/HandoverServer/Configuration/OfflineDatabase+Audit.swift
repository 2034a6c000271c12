import Foundation
import HandoverCore
import Logging
import TransparencyLog

/// `handover audit export`'s access to the audit log, from the server's machine.
extension HandoverServer {
    /// What an export holds: the entries as JSON lines (or CSV), and the log's latest signed
    /// checkpoint and verifier key, for `handover audit verify`.
    public struct AuditExport: Sendable {
        public var text: String
        public var entries: Int
        public var checkpoint: String?
        public var verifierKey: String?
    }

    /// The entries written from `from` to `to` (all of them by default), of one site's devices
    /// with `site`; JSON lines (`index`, `leaf` as base64 of the exact bytes hashed, `leafHash`,
    /// `entry` decoded), or CSV for people.
    public static func auditExport(_ configuration: ServerConfiguration, from: Date?, to: Date?, site: String?, csv: Bool,
                                   logger: Logger = Logger(label: "handover")) async throws -> AuditExport {
        let site = try site.map { text throws(SiteNameError) in try SiteName(text) }
        return try await withOfflineDatabase(configuration, logger: logger) { databases in
            let sql = try databases.sql()
            let log = AuditLog(sql: sql)
            let size = try await log.size()
            var lines: [String] = []
            var rows: [[String]] = [["index", "time", "type", "actor", "device", "site", "run", "detail"]]
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            var count = 0
            for start in stride(from: 0, to: size, by: 5_000) {
                for entry in try await log.entries(from: start, to: min(size, start + 5_000), site: site) {
                    let event = try? AuditEvent.decode(leaf: entry.leaf)
                    if let from, let at = event.flatMap({ try? Date($0.at, strategy: .iso8601) }), at < from { continue }
                    if let to, let at = event.flatMap({ try? Date($0.at, strategy: .iso8601) }), at >= to { continue }
                    count += 1
                    if csv {
                        let actor = event?.actor.map { [$0.kind, $0.name, $0.iss, $0.sub].compactMap { $0 }.joined(separator: " ") } ?? ""
                        let detail = (event?.detail ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
                        rows.append([String(entry.index), event?.at ?? "", event?.type ?? "(unreadable)", actor,
                                                    event?.device?.uuidString ?? "", entry.site ?? "", event?.run?.uuidString ?? "", detail])
                    } else {
                        let line = ExportedAuditEntry(index: entry.index, leaf: entry.leaf.base64EncodedString(),
                                                      leafHash: entry.leafHash.base64EncodedString(), entry: event)
                        lines.append(String(decoding: try encoder.encode(line), as: UTF8.self))
                    }
                }
            }
            let text = csv ? CSVWriter.render(rows) : lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
            return AuditExport(text: text, entries: count,
                               checkpoint: try await log.latestCheckpoint()?.note,
                               verifierKey: try await AuditCheckpointKey.verifier(on: sql))
        }
    }
}

extension HandoverServer {
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

/// Why `handover audit acknowledge` did nothing.
public struct AuditAcknowledgementRefusal: Error, CustomStringConvertible, Sendable {
    public var description: String
}

/// One line of a JSON-lines export: what `handover audit verify` reads.
public struct ExportedAuditEntry: Codable, Sendable {
    public var index: Int
    /// Base64 of the exact bytes that were hashed.
    public var leaf: String
    /// Base64 of the leaf hash the log recorded when it wrote the entry.
    public var leafHash: String?
    var entry: AuditEvent?

    init(index: Int, leaf: String, leafHash: String?, entry: AuditEvent?) {
        self.index = index
        self.leaf = leaf
        self.leafHash = leafHash
        self.entry = entry
    }

    enum CodingKeys: String, CodingKey {
        case index, leaf, leafHash, entry
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        index = try container.decode(Int.self, forKey: .index)
        leaf = try container.decode(String.self, forKey: .leaf)
        leafHash = try container.decodeIfPresent(String.self, forKey: .leafHash)
        entry = nil
    }
}
