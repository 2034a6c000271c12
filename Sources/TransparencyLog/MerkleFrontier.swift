/// The right edge of a growing Merkle tree: the roots of its perfect subtrees, one for each bit
/// set in its size, largest first. It gives the tree head of everything appended so far with
/// `O(log n)` hashes and memory, however large the log grows, where ``MerkleTree`` keeps every
/// leaf hash (what proofs need).
///
/// The head is RFC 9162's MTH (§2.1.1): a tree of `n` leaves splits at `k`, the largest power of
/// two smaller than `n`, so its left part is the first (largest) perfect subtree and its right
/// part the tree of the rest; folding the subtrees' roots from the smallest gives the same hash.
public struct MerkleFrontier: Sendable, Equatable {
    /// The perfect subtrees' roots, largest first, with their sizes (powers of two).
    private var subtrees: [(size: Int, root: MerkleHash)] = []
    /// How many leaves have been appended.
    public private(set) var size = 0

    /// An empty tree.
    public init() {}

    /// Appends one leaf by its hash (``MerkleHash/leaf(_:)`` of the entry).
    public mutating func append(leafHash: MerkleHash) {
        var carry = (size: 1, root: leafHash)
        // Two perfect subtrees of one size merge into the next, as a binary counter carries.
        while let last = subtrees.last, last.size == carry.size {
            subtrees.removeLast()
            carry = (last.size * 2, .node(last.root, carry.root))
        }
        subtrees.append(carry)
        size += 1
    }

    /// The tree head of every leaf appended, MTH(D[0:size]); the hash of the empty string for an
    /// empty tree.
    public var rootHash: MerkleHash {
        guard var root = subtrees.last?.root else { return .empty }
        for subtree in subtrees.dropLast().reversed() { root = .node(subtree.root, root) }
        return root
    }

    /// This tree with `leafHashes` appended.
    public func appending(_ leafHashes: some Sequence<MerkleHash>) -> MerkleFrontier {
        var tree = self
        for hash in leafHashes { tree.append(leafHash: hash) }
        return tree
    }

    /// The consistency proof from this tree (its `size` leaves) to the tree with `leafHashes`
    /// appended, PROOF(m, D[0:n]) as RFC 9162 §2.1.4.1 defines it, made without the old leaves:
    /// every node the proof takes from the old tree is one of this edge's perfect subtrees, and
    /// every other lies among the new leaves. Empty when this tree is empty or nothing is appended.
    public func consistencyProof(appending leafHashes: [MerkleHash]) throws(MerkleProofError) -> [MerkleHash] {
        let m = size, n = size + leafHashes.count
        guard m > 0, n > m else { return [] }
        var roots: [Int: (size: Int, root: MerkleHash)] = [:]
        var offset = 0
        for subtree in subtrees {
            roots[offset] = subtree
            offset += subtree.size
        }
        var proof: [MerkleHash] = []
        // SUBPROOF(m, D[start:end], b), with D[0:size] the old leaves.
        func subproof(_ m: Int, _ start: Int, _ end: Int, complete: Bool) throws(MerkleProofError) {
            let count = end - start
            if m == count {
                guard !complete else { return }
                guard let old = roots[start], old.size == count else { throw .wrongLength }
                proof.append(old.root)
                return
            }
            let k = MerkleTree.split(count)
            if m <= k {
                try subproof(m, start, start + k, complete: complete)
                proof.append(MerkleTree.root(leafHashes[(start + k - size)..<(end - size)]))
            } else {
                try subproof(m - k, start + k, end, complete: false)
                guard let old = roots[start], old.size == k else { throw .wrongLength }
                proof.append(old.root)
            }
        }
        try subproof(m, 0, n, complete: true)
        return proof
    }

    public static func == (lhs: MerkleFrontier, rhs: MerkleFrontier) -> Bool {
        lhs.size == rhs.size && lhs.subtrees.map(\.root) == rhs.subtrees.map(\.root)
    }
}
