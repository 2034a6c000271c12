import Crypto
import Foundation

/// A Merkle tree hashed as RFC 9162 (Certificate Transparency 2.0) section 2.1 says, over the
/// hashes of its leaves: a leaf is `SHA-256(0x00 ‖ entry)`, a node `SHA-256(0x01 ‖ left ‖ right)`,
/// and a tree of `n` leaves splits at `k`, the largest power of two smaller than `n`.
///
/// The tree holds the leaf hashes only (32 bytes each); the entries themselves live elsewhere.
/// Every function takes the tree size it works at, so one list answers for every earlier
/// checkpoint too.
public struct MerkleTree: Sendable {
    /// The leaf hashes, in order: entry `i`'s is `leafHashes[i]`.
    public private(set) var leafHashes: [MerkleHash]

    /// A tree over `leafHashes` (each ``MerkleHash/leaf(_:)`` of an entry).
    public init(leafHashes: [MerkleHash] = []) {
        self.leafHashes = leafHashes
    }

    /// How many leaves the tree holds.
    public var size: Int { leafHashes.count }

    /// Appends the leaf of `entry` (its exact bytes).
    public mutating func append(entry: some DataProtocol) {
        leafHashes.append(.leaf(entry))
    }

    /// The tree head of the first `size` leaves, MTH(D[0:size]) (RFC 9162 §2.1.1); the hash of
    /// the empty string for an empty tree.
    public func rootHash(size: Int? = nil) throws(MerkleProofError) -> MerkleHash {
        let size = size ?? self.size
        guard size >= 0, size <= self.size else { throw .sizeOutOfRange(size, treeSize: self.size) }
        return Self.root(leafHashes[0..<size])
    }

    /// The inclusion proof of leaf `index` in the tree of the first `size` leaves,
    /// PATH(index, D[0:size]) (RFC 9162 §2.1.3.1): the siblings from the leaf up to the root.
    public func inclusionProof(index: Int, size: Int) throws(MerkleProofError) -> [MerkleHash] {
        guard size > 0, size <= self.size else { throw .sizeOutOfRange(size, treeSize: self.size) }
        guard index >= 0, index < size else { throw .indexOutOfRange(index, treeSize: size) }
        var path: [MerkleHash] = []
        Self.path(index, leafHashes[0..<size], into: &path)
        return path
    }

    /// The consistency proof between the trees of the first `from` and the first `to` leaves,
    /// PROOF(from, D[0:to]) (RFC 9162 §2.1.4.1). Empty when `from` is 0 or equals `to`.
    public func consistencyProof(from: Int, to: Int) throws(MerkleProofError) -> [MerkleHash] {
        guard to >= 0, to <= self.size else { throw .sizeOutOfRange(to, treeSize: self.size) }
        guard from >= 0, from <= to else { throw .sizeOutOfRange(from, treeSize: to) }
        guard from > 0, from < to else { return [] }
        var proof: [MerkleHash] = []
        Self.subproof(from, leafHashes[0..<to], complete: true, into: &proof)
        return proof
    }

    // MARK: RFC 9162's definitions

    /// MTH over a slice, bottom up: pairing neighbours and carrying an odd last node up unchanged
    /// builds the same tree as the recursive split at the largest power of two.
    static func root(_ leaves: ArraySlice<MerkleHash>) -> MerkleHash {
        guard !leaves.isEmpty else { return .empty }
        var level = Array(leaves)
        while level.count > 1 {
            var next: [MerkleHash] = []
            next.reserveCapacity((level.count + 1) / 2)
            var i = 0
            while i + 1 < level.count {
                next.append(.node(level[i], level[i + 1]))
                i += 2
            }
            if i < level.count { next.append(level[i]) }
            level = next
        }
        return level[0]
    }

    /// The largest power of two smaller than `n` (n > 1).
    static func split(_ n: Int) -> Int {
        var k = 1
        while k << 1 < n { k <<= 1 }
        return k
    }

    private static func path(_ m: Int, _ leaves: ArraySlice<MerkleHash>, into path: inout [MerkleHash]) {
        let n = leaves.count
        guard n > 1 else { return }
        let k = split(n), start = leaves.startIndex
        if m < k {
            Self.path(m, leaves[start..<start + k], into: &path)
            path.append(root(leaves[(start + k)...]))
        } else {
            Self.path(m - k, leaves[(start + k)...], into: &path)
            path.append(root(leaves[start..<start + k]))
        }
    }

    private static func subproof(_ m: Int, _ leaves: ArraySlice<MerkleHash>, complete: Bool, into proof: inout [MerkleHash]) {
        let n = leaves.count, start = leaves.startIndex
        if m == n {
            if !complete { proof.append(root(leaves)) }
            return
        }
        let k = split(n)
        if m <= k {
            subproof(m, leaves[start..<start + k], complete: complete, into: &proof)
            proof.append(root(leaves[(start + k)...]))
        } else {
            subproof(m - k, leaves[(start + k)...], complete: false, into: &proof)
            proof.append(root(leaves[start..<start + k]))
        }
    }
}
