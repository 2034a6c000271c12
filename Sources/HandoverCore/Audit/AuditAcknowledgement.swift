import Foundation
import TransparencyLog

/// An operator's answer to the audit log's alarms (`handover audit acknowledge`, run where the
/// server's encryption key is, since it signs with the log's key).
///
/// What it means: the operator has seen what the checks found, says who they are and why they
/// accept the log as it is now stored, and the server starts a new epoch. In one transaction:
///
/// 1. every open alarm is marked acknowledged, by whom, with the reason;
/// 2. where an entry's stored leaf hash is not the hash of its bytes, the hash is made the hash of
///    the bytes (the bytes are what the log shows and exports);
/// 3. an `audit.acknowledged` entry records the operator, the reason, the alarms, the checkpoint
///    the stored log no longer makes, and the entries re-hashed;
/// 4. when an alarm was about the history, a checkpoint of the log as it now stands is signed,
///    marked as the start of an epoch (the extension line ``CheckpointSigning/epochLine``), and
///    published like any other (the `audit.checkpoint` webhook, the SIEM).
///
/// Checkpoints signed before the epoch keep saying what the log was: `handover audit verify`
/// against one of them still names the rewrite. An acknowledgement cannot close a gap (an entry
/// deleted): it refuses, and the entry must be restored first (from the SIEM's copy, or a backup).
package enum AuditAcknowledgement {
    /// What an acknowledgement did.
    package struct Done: Sendable {
        package var alarms: [AuditAlarms.Alarm]
        /// The epoch's first checkpoint, when the history was acknowledged.
        package var checkpoint: AuditLog.StoredCheckpoint?
        /// The entries whose stored leaf hash was replaced by the hash of their bytes.
        package var rehashed: [Int]
    }

    /// The type of the entry that records an acknowledgement.
    package static let entryType = "audit.acknowledged"

    /// Acknowledges every open alarm as `operatorName`, for `reason`.
    ///
    /// - Throws: ``DomainError`` for an operator or reason that is empty, too long or holds
    ///   control characters, when no alarm is open, and when an entry is missing.
    package static func acknowledge(operatorName: String, reason: String, key: NoteSigningKey, database: DatabaseHandle,
                                    reads: DatabaseHandle? = nil, now: Date) async throws -> Done {
        guard (1...100).contains(operatorName.count), !operatorName.containsControlCharacter else {
            throw DomainError.invalid("operator", "give who you are: 1 to 100 characters, no control characters.")
        }
        guard (1...500).contains(reason.count), !reason.containsControlCharacter else {
            throw DomainError.invalid("reason", "say why the log may go on as it is stored: 1 to 500 characters, no control characters.")
        }
        guard let writer = AuditStore(database) else { throw AuditLogError.noHead }
        let log = (reads.flatMap { AuditStore($0) } ?? writer).log
        let open = try await writer.openAlarms()
        guard !open.isEmpty else {
            throw DomainError(.conflict, code: "no_alarm", reason: "The audit log has no open alarm: there is nothing to acknowledge.")
        }
        let history = open.contains { $0.kind == .history }
        // The tree of the log as stored, hashed from the entries' bytes: read before the
        // transaction, which then holds the writer only for what was appended since.
        var read = MerkleFrontier()
        var mismatches: [Int] = []
        let size = try await log.size()
        let superseded = try await log.latestCheckpoint()
        if let superseded, superseded.size > size {
            throw DomainError(.conflict, code: "entries_missing",
                              reason: "The log holds \(size) entries, fewer than its checkpoint of \(superseded.size): restore the missing entries (the SIEM has a copy) before acknowledging.")
        }
        if history { try await hash(from: 0, to: size, into: &read, mismatches: &mismatches, log: log) }
        let stored = read, rehashed = mismatches
        let superseding = superseded.map { "\($0.size) entries, root \($0.rootHash.base64)" } ?? "none"
        let result = try await database.inTransaction { db -> Done in
            guard let store = AuditStore(db) else { throw AuditLogError.noHead }
            let alarms = try await store.acknowledgeAlarms(by: operatorName, reason: reason, now: now)
            var detail = ["reason": reason, "alarms": String(alarms.map(\.finding).joined(separator: "; ").prefix(2_000))]
            if history {
                detail["superseded checkpoint"] = superseding
                detail["rehashed entries"] = rehashed.isEmpty ? "none" : String(rehashed.map(String.init).joined(separator: ", ").prefix(1_000))
            }
            try await store.append([AuditEvent(type: entryType, at: now, actor: AuditActor(kind: "operator", name: operatorName), detail: detail)],
                                   now: now)
            guard history else { return Done(alarms: alarms, checkpoint: nil, rehashed: []) }
            for index in rehashed {
                try await store.rehash(entry: index, to: try await leafHash(of: index, log: store.log))
            }
            // What was appended since the read, the acknowledgement included, from the writer.
            let end = try await store.log.size()
            var tree = stored, late: [Int] = []
            try await hash(from: size, to: end, into: &tree, mismatches: &late, log: store.log)
            guard late.isEmpty else { throw AuditLogError.entry(late[0], "does not match its leaf hash") }
            let checkpoint = Checkpoint(origin: key.verifier.name, size: end, rootHash: tree.rootHash, extensions: [CheckpointSigning.epochLine])
            let note = try SignedNote.sign(checkpoint.text, with: key).serialized
            try await store.insertEpochCheckpoint(size: end, rootHash: tree.rootHash, note: note, now: now)
            let event = AuditCheckpointEvent(size: end, rootHash: tree.rootHash.base64, note: note, consistency: nil)
            try await WebhookOutbox.enqueue([.init(AuditCheckpointEvent.type, run: nil, deviceID: nil, checkpoint: event, at: now)], on: db)
            return Done(alarms: alarms, checkpoint: try await store.log.checkpoint(size: end), rehashed: rehashed)
        }
        return result
    }

    /// Extends `tree` with the entries `start..<end`, each hashed from its bytes; notes the
    /// indexes whose stored hash differs. Throws when an entry is missing.
    static func hash(from start: Int, to end: Int, into tree: inout MerkleFrontier, mismatches: inout [Int], log: AuditLog) async throws {
        var next = start
        while next < end {
            let batch = try await log.entries(from: next, to: min(next + 5_000, end))
            guard !batch.isEmpty else { throw missing(next) }
            for entry in batch {
                guard entry.index == next else { throw missing(next) }
                let hash = MerkleHash.leaf(entry.leaf)
                if Data(hash.bytes) != entry.leafHash { mismatches.append(entry.index) }
                tree.append(leafHash: hash)
                next += 1
            }
        }
    }

    private static func missing(_ index: Int) -> DomainError {
        DomainError(.conflict, code: "entries_missing",
                    reason: "Entry \(index) is missing: an acknowledgement cannot close a gap. Restore it (the SIEM has a copy) and acknowledge again.")
    }

    private static func leafHash(of index: Int, log: AuditLog) async throws -> MerkleHash {
        guard let entry = try await log.entries(from: index, to: index + 1).first else { throw missing(index) }
        return MerkleHash.leaf(entry.leaf)
    }
}
