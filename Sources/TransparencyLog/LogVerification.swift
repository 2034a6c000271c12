import Foundation

/// Checks a whole copy of a log against a signed checkpoint, offline: the checkpoint's
/// signature by the log's key, then every entry from index 0 to the checkpoint's size (each
/// present once, each entry's bytes against the leaf hash recorded with it), then the root the
/// entries make. `handover audit verify` is this over an export.
public struct LogVerification {
    /// One entry of the copy.
    public struct Entry: Sendable {
        public var index: Int
        /// The exact bytes that were hashed.
        public var leaf: Data
        /// The leaf hash the log recorded when it wrote the entry, when the copy carries it.
        public var recordedLeafHash: MerkleHash?

        public init(index: Int, leaf: Data, recordedLeafHash: MerkleHash?) {
            self.index = index
            self.leaf = leaf
            self.recordedLeafHash = recordedLeafHash
        }
    }

    /// What failed, naming the first entry that does not verify where one can be named.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case checkpoint(CheckpointError)
        /// No entry with this index (deleted, or the copy stops short of the checkpoint).
        case missing(index: Int)
        /// Two entries with one index.
        case duplicate(index: Int)
        /// The entry's bytes do not hash to the leaf hash recorded with them: changed after it was written.
        case changed(index: Int)
        /// The entries, each matching its recorded hash, do not make the signed root: entries and
        /// their hashes were changed together, or the copy is of another log.
        case rootMismatch(size: Int)

        public var description: String {
            switch self {
            case .checkpoint(let error): "the checkpoint does not verify: \(error)"
            case .missing(let index): "entry \(index) is missing"
            case .duplicate(let index): "entry \(index) appears twice"
            case .changed(let index): "entry \(index) does not verify: its bytes are not the ones its leaf hash was made from"
            case .rootMismatch(let size): "the first \(size) entries do not make the checkpoint's root hash"
            }
        }
    }

    /// Verifies `entries` (in any order; those past the checkpoint are ignored) against the signed
    /// checkpoint `note` by `key`. Returns the checkpoint that verified.
    public static func verify(entries: [Entry], note: String, key: NoteVerifierKey) throws(Failure) -> Checkpoint {
        let checkpoint: Checkpoint
        do {
            let signed = try SignedNote(serialized: note)
            try signed.verify(with: key)
            checkpoint = try Checkpoint(text: signed.text)
        } catch {
            throw .checkpoint(error)
        }
        var byIndex = [Int: Entry]()
        for entry in entries where entry.index < checkpoint.size {
            guard byIndex.updateValue(entry, forKey: entry.index) == nil else { throw .duplicate(index: entry.index) }
        }
        var tree = MerkleTree()
        for index in 0..<checkpoint.size {
            guard let entry = byIndex[index] else { throw .missing(index: index) }
            let hash = MerkleHash.leaf(entry.leaf)
            if let recorded = entry.recordedLeafHash, recorded != hash { throw .changed(index: index) }
            tree.append(entry: entry.leaf)
        }
        guard (try? tree.rootHash()) == checkpoint.rootHash else { throw .rootMismatch(size: checkpoint.size) }
        return checkpoint
    }
}
