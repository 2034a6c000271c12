import Foundation
import TransparencyLog

/// What `handover audit export` writes: the entries as JSON lines (or CSV), and the log's latest
/// signed checkpoint and verifier key, for `handover audit verify`.
public struct AuditExport: Sendable {
    public var text: String
    public var entries: Int
    public var checkpoint: String?
    public var verifierKey: String?

    package init(text: String, entries: Int, checkpoint: String?, verifierKey: String?) {
        self.text = text
        self.entries = entries
        self.checkpoint = checkpoint
        self.verifierKey = verifierKey
    }

    /// Reads the entries written from `from` to `to` (all of them by default), of one site's devices
    /// with `site`; JSON lines (`index`, `leaf` as base64 of the exact bytes hashed, `leafHash`,
    /// `entry` decoded), or CSV for people.
    package static func read(from databases: ServerDatabases, from: Date?, to: Date?, site: String?, csv: Bool) async throws -> AuditExport {
        let site = try site.map { text throws(SiteNameError) in try SiteName(text) }
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

/// Why `handover audit acknowledge` did nothing.
public struct AuditAcknowledgementRefusal: Error, CustomStringConvertible, Sendable {
    public var description: String

    package init(description: String) { self.description = description }
}

/// One line of a JSON-lines export: what `handover audit verify` reads.
public struct ExportedAuditEntry: Codable, Sendable {
    public var index: Int
    /// Base64 of the exact bytes that were hashed.
    public var leaf: String
    /// Base64 of the leaf hash the log recorded when it wrote the entry.
    public var leafHash: String?
    var entry: AuditEvent?

    package init(index: Int, leaf: String, leafHash: String?, entry: AuditEvent?) {
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
