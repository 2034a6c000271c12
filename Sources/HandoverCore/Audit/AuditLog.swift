import FluentKit
import Foundation
import SQLKit
import TransparencyLog

/// The audit log as stored: its entries, its tree, its signed checkpoints and its self-check.
package struct AuditLog: Sendable {
    package let sql: any SQLDatabase

    package init(sql: any SQLDatabase) {
        self.sql = sql
    }

    /// One stored entry.
    package struct Entry: Sendable {
        package var index: Int
        /// The exact bytes that were hashed.
        package var leaf: Data
        /// The leaf hash stored when it was written.
        package var leafHash: Data
        package var site: String?
    }

    /// A signed checkpoint as stored.
    package struct StoredCheckpoint: Sendable, Equatable {
        package var size: Int
        package var rootHash: MerkleHash
        /// The signed note's text.
        package var note: String
        package var createdAt: Date

        package init(size: Int, rootHash: MerkleHash, note: String, createdAt: Date) {
            self.size = size
            self.rootHash = rootHash
            self.note = note
            self.createdAt = createdAt
        }
    }

    /// How many entries the log holds (its counter).
    package func size() async throws -> Int {
        guard let row = try await sql.raw("SELECT size FROM audit_head WHERE id = 1").first() else { throw AuditLogError.noHead }
        return try row.decode(column: "size", as: Int.self)
    }

    /// Entries `start..<end`, in order; with `site`, only that site's (compared as
    /// ``SiteName`` compares, here rather than in SQL: an entry keeps its site as written).
    package func entries(from start: Int, to end: Int, site: SiteName? = nil) async throws -> [Entry] {
        guard end > start else { return [] }
        let siteFilter: SQLQueryString = site == nil ? "" : " AND site IS NOT NULL"
        return try await sql.raw("""
            SELECT seq, leaf, leaf_hash, site FROM audit_entries WHERE seq >= \(bind: start) AND seq < \(bind: end)\(siteFilter) ORDER BY seq
            """).all().map { row in
            Entry(index: try row.decode(column: "seq", as: Int.self), leaf: try row.decode(column: "leaf", as: Data.self),
                  leafHash: try row.decode(column: "leaf_hash", as: Data.self), site: try row.decode(column: "site", as: String?.self))
        }.filter { entry in site.map { $0.matches(entry.site) } ?? true }
    }

    /// The tree of the first `size` entries, from their stored leaf hashes. Throws when an entry
    /// is missing (the tree's size must equal the number of entries).
    package func tree(size: Int) async throws -> MerkleTree {
        var hashes: [MerkleHash] = []
        hashes.reserveCapacity(size)
        for row in try await sql.raw("SELECT seq, leaf_hash FROM audit_entries WHERE seq < \(bind: size) ORDER BY seq").all() {
            let seq = try row.decode(column: "seq", as: Int.self)
            guard seq == hashes.count else { throw AuditLogError.entry(hashes.count, "is missing") }
            guard let hash = MerkleHash(bytes: try row.decode(column: "leaf_hash", as: Data.self)) else {
                throw AuditLogError.entry(seq, "its stored leaf hash is not 32 bytes")
            }
            hashes.append(hash)
        }
        guard hashes.count == size else { throw AuditLogError.entry(hashes.count, "is missing") }
        return MerkleTree(leafHashes: hashes)
    }

    /// The latest signed checkpoint, or nil before the first.
    package func latestCheckpoint() async throws -> StoredCheckpoint? {
        try await checkpoint(sql.raw("SELECT size, root_hash, note, created_at FROM audit_checkpoints ORDER BY size DESC LIMIT 1"))
    }

    /// The checkpoint of exactly `size` entries, if one was signed.
    package func checkpoint(size: Int) async throws -> StoredCheckpoint? {
        try await checkpoint(sql.raw("SELECT size, root_hash, note, created_at FROM audit_checkpoints WHERE size = \(bind: size)"))
    }

    private func checkpoint(_ query: SQLRawBuilder) async throws -> StoredCheckpoint? {
        guard let row = try await query.first() else { return nil }
        guard let root = MerkleHash(bytes: try row.decode(column: "root_hash", as: Data.self)) else { return nil }
        return StoredCheckpoint(size: try row.decode(column: "size", as: Int.self), rootHash: root,
                                note: try row.decode(column: "note", as: String.self),
                                createdAt: try row.decode(column: "created_at", as: Date.self))
    }

    /// Extends `frontier` with the entries from its size up to `size`, by their stored leaf
    /// hashes, 10,000 a read. Throws when an entry is missing.
    package func extend(_ frontier: inout MerkleFrontier, to size: Int) async throws {
        while frontier.size < size {
            let end = min(frontier.size + 10_000, size)
            let rows = try await sql.raw("""
                SELECT seq, leaf_hash FROM audit_entries WHERE seq >= \(bind: frontier.size) AND seq < \(bind: end) ORDER BY seq
                """).all()
            for row in rows {
                let seq = try row.decode(column: "seq", as: Int.self)
                guard seq == frontier.size else { throw AuditLogError.entry(frontier.size, "is missing") }
                guard let hash = MerkleHash(bytes: try row.decode(column: "leaf_hash", as: Data.self)) else {
                    throw AuditLogError.entry(seq, "its stored leaf hash is not 32 bytes")
                }
                frontier.append(leafHash: hash)
            }
            guard frontier.size == end else { throw AuditLogError.entry(frontier.size, "is missing") }
        }
    }

    /// The leaf hashes of entries `start..<end`, each made again from the entry's bytes, 5,000
    /// a read: what a checkpoint signs for the entries appended since the last one, rather than
    /// the stored hashes, which a database writer can rewrite with the bytes.
    ///
    /// - Throws: ``AuditLogError/entry(_:_:)`` for an entry missing, or whose stored leaf hash is
    ///   not the hash of its bytes.
    package func rehashed(from start: Int, to end: Int) async throws -> [MerkleHash] {
        var hashes: [MerkleHash] = []
        hashes.reserveCapacity(max(0, end - start))
        var next = start
        while next < end {
            let batch = try await entries(from: next, to: min(next + 5_000, end))
            guard !batch.isEmpty else { throw AuditLogError.entry(next, "is missing") }
            for entry in batch {
                guard entry.index == next else { throw AuditLogError.entry(next, "is missing") }
                let hash = MerkleHash.leaf(entry.leaf)
                guard Data(hash.bytes) == entry.leafHash else { throw AuditLogError.entry(entry.index, "does not match its leaf hash") }
                hashes.append(hash)
                next += 1
            }
        }
        return hashes
    }

    /// How many entries' bytes one self-check reads at most (about 100 MB of a log of receipts).
    package static let selfCheckByteWindow = 100_000

    /// What a self-check found, and where the next one goes on reading entries' bytes.
    package struct SelfCheck: Sendable, Equatable {
        /// What is wrong, naming the first entry that does not verify; nil when all agree.
        package var finding: String?
        /// The first entry whose bytes the next check reads.
        package var nextByteCheck: Int

        package init(finding: String?, nextByteCheck: Int) {
            self.finding = finding
            self.nextByteCheck = nextByteCheck
        }
    }

    /// Compares the stored log with its latest checkpoint, returning nil when they agree, or
    /// what is wrong, naming the first entry that does not verify:
    ///
    /// - the checkpoint's signature, by `key`;
    /// - every index present, and the root of the stored leaf hashes against the signed root (a
    ///   changed, added or deleted entry whose hash was rewritten to match shows here); this
    ///   reads 32 bytes an entry, the whole log every time;
    /// - the entries' bytes against their stored leaf hashes, for `window` entries from
    ///   `bytesFrom` (wrapping to 0 at the end), so that a check costs at most that many
    ///   entries' bytes however long the log grows, and successive checks read every entry in
    ///   turn. A log no longer than the window is read whole every time.
    package func selfCheck(key: NoteVerifierKey, bytesFrom: Int = 0, window: Int = AuditLog.selfCheckByteWindow) async throws -> SelfCheck {
        guard let checkpoint = try await latestCheckpoint() else { return SelfCheck(finding: nil, nextByteCheck: 0) }
        do {
            let note = try SignedNote(serialized: checkpoint.note)
            try note.verify(with: key)
            let signed = try Checkpoint(text: note.text)
            guard signed.size == checkpoint.size, signed.rootHash == checkpoint.rootHash else {
                return SelfCheck(finding: "the stored checkpoint's size or root differs from the note it signed", nextByteCheck: bytesFrom)
            }
        } catch {
            return SelfCheck(finding: "the latest checkpoint (size \(checkpoint.size)) does not verify: \(error)", nextByteCheck: bytesFrom)
        }
        // The bytes of the window first: a changed entry is named by its own mismatch.
        let size = checkpoint.size
        let start = size <= window || bytesFrom >= size ? 0 : bytesFrom
        let end = min(start + window, size)
        var next = start
        while next < end {
            let batch = try await entries(from: next, to: min(next + 5_000, end))
            for entry in batch {
                guard entry.index == next else { return SelfCheck(finding: "entry \(next) is missing", nextByteCheck: start) }
                guard Data(MerkleHash.leaf(entry.leaf).bytes) == entry.leafHash else {
                    return SelfCheck(finding: "entry \(entry.index) does not match its leaf hash", nextByteCheck: start)
                }
                next += 1
            }
            guard !batch.isEmpty else { return SelfCheck(finding: "entry \(next) is missing", nextByteCheck: start) }
        }
        // Then every leaf hash, against the signed root.
        var frontier = MerkleFrontier()
        do {
            try await extend(&frontier, to: size)
        } catch AuditLogError.entry(let index, let why) {
            return SelfCheck(finding: "entry \(index) \(why)", nextByteCheck: start)
        }
        guard frontier.rootHash == checkpoint.rootHash else {
            return SelfCheck(finding: "the entries' root differs from the checkpoint of \(size) entries", nextByteCheck: start)
        }
        return SelfCheck(finding: nil, nextByteCheck: end >= size ? 0 : end)
    }
}
