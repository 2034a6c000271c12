/// Why a Merkle proof could not be made or did not verify.
public enum MerkleProofError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A tree size beyond the tree (or a negative one).
    case sizeOutOfRange(Int, treeSize: Int)
    /// A leaf index at or beyond the tree's size.
    case indexOutOfRange(Int, treeSize: Int)
    /// The proof has too many or too few hashes for the sizes it is for.
    case wrongLength
    /// The proof computes a different root (or, for consistency, a different old root).
    case rootMismatch

    public var description: String {
        switch self {
        case .sizeOutOfRange(let size, let treeSize): "tree size \(size) is outside 0…\(treeSize)"
        case .indexOutOfRange(let index, let treeSize): "leaf index \(index) is outside a tree of \(treeSize) leaves"
        case .wrongLength: "the proof has the wrong number of hashes for these sizes"
        case .rootMismatch: "the proof does not lead to the root hash given"
        }
    }
}
