/// Verifies inclusion and consistency proofs exactly as RFC 9162 §2.1.3.2 and §2.1.4.2 say.
public enum MerkleProof {
    /// Checks that `leafHash` is leaf `index` of the tree of `treeSize` leaves whose root is
    /// `rootHash`, by the audit path `path` (RFC 9162 §2.1.3.2).
    public static func verifyInclusion(leafHash: MerkleHash, index: Int, treeSize: Int, path: [MerkleHash],
                                       rootHash: MerkleHash) throws(MerkleProofError) {
        guard index >= 0, index < treeSize else { throw .indexOutOfRange(index, treeSize: treeSize) }
        var fn = index, sn = treeSize - 1, r = leafHash
        for p in path {
            guard sn != 0 else { throw .wrongLength }
            if fn & 1 == 1 || fn == sn {
                r = .node(p, r)
                if fn & 1 == 0 {
                    while fn & 1 == 0 && fn != 0 {
                        fn >>= 1
                        sn >>= 1
                    }
                }
            } else {
                r = .node(r, p)
            }
            fn >>= 1
            sn >>= 1
        }
        guard sn == 0 else { throw .wrongLength }
        guard r == rootHash else { throw .rootMismatch }
    }

    /// Checks that the tree of `from` leaves with root `fromRoot` is a prefix of the tree of `to`
    /// leaves with root `toRoot`, by the consistency path `path` (RFC 9162 §2.1.4.2). Equal sizes
    /// need an empty path and equal roots; an empty old tree is consistent with every tree.
    public static func verifyConsistency(from: Int, to: Int, fromRoot: MerkleHash, toRoot: MerkleHash,
                                         path: [MerkleHash]) throws(MerkleProofError) {
        guard from >= 0, from <= to else { throw .sizeOutOfRange(from, treeSize: to) }
        if from == 0 {
            guard path.isEmpty else { throw .wrongLength }
            return
        }
        if from == to {
            guard path.isEmpty else { throw .wrongLength }
            guard fromRoot == toRoot else { throw .rootMismatch }
            return
        }
        // 1. An empty path fails.
        guard !path.isEmpty else { throw .wrongLength }
        // 2. When `from` is an exact power of two, its root is the path's first node.
        var path = path
        if from & (from - 1) == 0 { path.insert(fromRoot, at: 0) }
        // 3, 4.
        var fn = from - 1, sn = to - 1
        while fn & 1 == 1 {
            fn >>= 1
            sn >>= 1
        }
        // 5, 6.
        var fr = path[0], sr = path[0]
        for c in path.dropFirst() {
            guard sn != 0 else { throw .wrongLength }
            if fn & 1 == 1 || fn == sn {
                fr = .node(c, fr)
                sr = .node(c, sr)
                if fn & 1 == 0 {
                    while fn & 1 == 0 && fn != 0 {
                        fn >>= 1
                        sn >>= 1
                    }
                }
            } else {
                sr = .node(sr, c)
            }
            fn >>= 1
            sn >>= 1
        }
        // 7.
        guard sn == 0 else { throw .wrongLength }
        guard fr == fromRoot, sr == toRoot else { throw .rootMismatch }
    }
}
