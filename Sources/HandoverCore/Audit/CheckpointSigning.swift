import Foundation
import TransparencyLog

/// Signs the audit log's checkpoints, and never over a broken history (issue 63): before a new
/// checkpoint is signed, the previous one is verified with the log's key and proven consistent
/// with the new tree, as RFC 9162 §2.1.4 defines consistency.
///
/// A database writer can rewrite any row, the stored leaf hashes included, so the new tree does
/// not come from stored state alone:
///
/// - Its part up to the previous checkpoint is this instance's own tree as it verified it at that
///   checkpoint (its right edge, a ``MerkleFrontier``), or, when this instance has none yet (after
///   a start, or behind another instance that signed since), the stored leaf hashes, which must
///   reproduce the previous checkpoint's signed root, or the entries' bytes from where this
///   instance's tree ends, which must.
/// - The entries appended since are hashed again from their bytes, and each must match the leaf
///   hash stored with it.
/// - The consistency proof between the previous checkpoint and the new tree is computed from
///   those (§2.1.4.1) and verified (§2.1.4.2) before the new one is signed; it is published with
///   the checkpoint (the `audit.checkpoint` webhook), so a receiver that kept the previous
///   checkpoint can check it too.
///
/// A checkpoint whose note carries the extension line ``epochLine`` starts an epoch: an
/// operator acknowledged a broken history (``AuditAcknowledgement``), and the tree is taken as
/// it was stored then. Only a holder of the log's key can sign one.
package struct CheckpointSigning: Sendable {
    /// The extension line (C2SP tlog-checkpoint) of a checkpoint that starts an epoch.
    package static let epochLine = "handover-epoch acknowledged"

    /// Where the checkpoint and its webhook are written.
    let database: DatabaseHandle
    /// Where the log is read (SQLite's read connections: reading never holds the one writer).
    let reads: AuditLog
    let key: NoteSigningKey

    package init(database: DatabaseHandle, reads: AuditLog, key: NoteSigningKey) {
        self.database = database
        self.reads = reads
        self.key = key
    }

    /// What a pass did.
    package enum Outcome: Sendable {
        /// Nothing was appended since the latest checkpoint; the tree as verified at it.
        case nothingNew(MerkleFrontier)
        /// A checkpoint was signed (or another instance's of the same tree was kept); the tree.
        case signed(AuditLog.StoredCheckpoint, MerkleFrontier)
        /// What is wrong; nothing was signed.
        case refused(String)
    }

    /// A checkpoint's note checked with the log's key, against the row that stores it.
    package static func verified(_ stored: AuditLog.StoredCheckpoint, key: NoteVerifierKey) -> Result<Checkpoint, Refusal> {
        do {
            let note = try SignedNote(serialized: stored.note)
            try note.verify(with: key)
            let signed = try Checkpoint(text: note.text)
            guard signed.size == stored.size, signed.rootHash == stored.rootHash, signed.origin == key.name else {
                return .failure(Refusal("the stored checkpoint of \(stored.size) entries differs from the note it signed"))
            }
            return .success(signed)
        } catch {
            return .failure(Refusal("the checkpoint of \(stored.size) entries does not verify with the log's key: \(error)"))
        }
    }

    /// Why a checkpoint was not signed.
    package struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        package var description: String
        package init(_ description: String) { self.description = description }
    }

    /// Signs a checkpoint of the log as it is now when it grew since the latest, from `trusted`,
    /// this instance's tree at the checkpoint it last verified (empty the first time).
    package func sign(trusted: MerkleFrontier, now: Date) async throws -> Outcome {
        let size = try await reads.size()
        let stored = try await reads.latestCheckpoint()
        var previous: Checkpoint?
        let base: MerkleFrontier
        if let stored {
            switch Self.verified(stored, key: key.verifier) {
            case .failure(let refusal): return .refused(refusal.description)
            case .success(let signed): previous = signed
            }
            switch try await tree(at: stored.size, root: stored.rootHash, epoch: previous?.extensions.contains(Self.epochLine) == true,
                                  trusted: trusted) {
            case .failure(let refusal): return .refused(refusal.description)
            case .success(let tree): base = tree
            }
        } else {
            guard trusted.size == 0 else {
                return .refused("the log holds no checkpoint, but this server verified one of \(trusted.size) entries: the checkpoints were deleted")
            }
            base = MerkleFrontier()
        }
        let from = previous?.size ?? 0
        guard size >= from else {
            return .refused("the log holds \(size) entries, fewer than its checkpoint of \(from): entries at its end were deleted")
        }
        guard size > from || stored == nil else { return .nothingNew(base) }
        let appended: [MerkleHash]
        do {
            appended = try await reads.rehashed(from: from, to: size)
        } catch AuditLogError.entry(let index, let why) {
            return .refused("entry \(index) \(why)")
        }
        let proof: [MerkleHash]
        do { proof = try base.consistencyProof(appending: appended) } catch {
            return .refused("no consistency proof from \(from) to \(size) entries: \(error)")
        }
        let tree = base.appending(appended)
        if let previous {
            do {
                try MerkleProof.verifyConsistency(from: previous.size, to: size, fromRoot: previous.rootHash, toRoot: tree.rootHash, path: proof)
            } catch {
                return .refused("the tree of \(size) entries is not consistent with the checkpoint of \(previous.size) (RFC 9162 §2.1.4.2): \(error)")
            }
        }
        let checkpoint = Checkpoint(origin: key.verifier.name, size: size, rootHash: tree.rootHash)
        let kept = try await store(checkpoint, consistency: previous.map { .init(from: $0.size, to: size, path: proof.map(\.base64)) }, now: now)
        guard kept.rootHash == tree.rootHash else {
            return .refused("another instance signed a different root for the log of \(size) entries")
        }
        return .signed(kept, tree)
    }

    /// Signs `checkpoint` and stores it, with its `audit.checkpoint` webhook in the same
    /// transaction; returns the checkpoint kept for its size (another instance's, when it stored
    /// one first).
    func store(_ checkpoint: Checkpoint, consistency: AuditCheckpointEvent.Consistency?, now: Date) async throws -> AuditLog.StoredCheckpoint {
        let note = try SignedNote.sign(checkpoint.text, with: key).serialized
        try await database.inTransaction { db in
            guard let store = AuditStore(db) else { throw AuditLogError.noHead }
            guard try await store.insertCheckpoint(checkpoint, note: note, now: now) else { return }
            let event = AuditCheckpointEvent(size: checkpoint.size, rootHash: checkpoint.rootHash.base64, note: note, consistency: consistency)
            try await WebhookOutbox.enqueue([.init(AuditCheckpointEvent.type, run: nil, deviceID: nil, checkpoint: event, at: now)], on: db)
        }
        guard let store = AuditStore(database), let kept = try await store.log.checkpoint(size: checkpoint.size) else {
            throw AuditLogError.entry(checkpoint.size, "its checkpoint was not stored")
        }
        return kept
    }

    /// The tree of the first `size` entries, whose signed root is `root`: `trusted` when it is
    /// that tree; `trusted` extended by the entries' bytes when it is behind; the stored leaf
    /// hashes when this instance has no tree yet or the checkpoint starts an epoch. Each must
    /// make `root`.
    func tree(at size: Int, root: MerkleHash, epoch: Bool, trusted: MerkleFrontier) async throws -> Result<MerkleFrontier, Refusal> {
        if trusted.size > size {
            return .failure(Refusal("the latest checkpoint is of \(size) entries, but this server verified one of \(trusted.size): "
                                        + "checkpoints were deleted, or the database was restored from an older copy"))
        }
        if trusted.size == size {
            return trusted.rootHash == root ? .success(trusted)
                : .failure(Refusal("the checkpoint of \(size) entries does not have the root this server computed for them"))
        }
        var tree = MerkleFrontier()
        if trusted.size > 0, !epoch {
            do {
                tree = trusted.appending(try await reads.rehashed(from: trusted.size, to: size))
            } catch AuditLogError.entry(let index, let why) {
                return .failure(Refusal("entry \(index) \(why)"))
            }
            guard tree.rootHash == root else {
                return .failure(Refusal("the checkpoint of \(size) entries is not consistent with the checkpoint of \(trusted.size) this server verified"))
            }
            return .success(tree)
        }
        do {
            try await reads.extend(&tree, to: size)
        } catch AuditLogError.entry(let index, let why) {
            return .failure(Refusal("entry \(index) \(why)"))
        }
        guard tree.rootHash == root else {
            return .failure(Refusal("the stored entries no longer make the root of the checkpoint of \(size) entries: "
                                        + "entries before it were changed with their leaf hashes, or deleted"))
        }
        return .success(tree)
    }
}

/// What the `audit.checkpoint` webhook carries: the signed checkpoint, and the consistency proof
/// from the one before (RFC 9162 §2.1.4), so that a receiver that kept that one can check that
/// the log only grew.
package struct AuditCheckpointEvent: Codable, Equatable, Sendable {
    /// The webhook event type.
    package static let type = "audit.checkpoint"

    package var size: Int
    package var rootHash: String
    /// The signed note (C2SP tlog-checkpoint, signed-note).
    package var note: String
    /// The proof from the previous checkpoint; absent for the first, and for an epoch's.
    package var consistency: Consistency?

    /// A consistency proof, base64 hashes (as `GET /api/v1/audit/proofs/consistency` answers).
    package struct Consistency: Codable, Equatable, Sendable {
        package var from: Int
        package var to: Int
        package var path: [String]
    }
}
