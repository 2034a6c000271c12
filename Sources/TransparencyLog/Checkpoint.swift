import Foundation

/// A tree head as the C2SP `tlog-checkpoint` format writes it: the log's origin, the tree size
/// in decimal and the root hash in standard base64, each on its own line.
///
/// ```
/// handover.example.org/audit
/// 1042
/// 7Bxm0wU3Zs0fJ6nEtp0Uk1tT2c4NfCrtoJ7CbP6lY1Y=
/// ```
///
/// Signed, it is the text of a ``SignedNote``.
public struct Checkpoint: Sendable, Hashable {
    /// The log's name, unique to the log: Handover uses its public host and `/audit`.
    public var origin: String
    /// How many entries the tree holds.
    public var size: Int
    /// The tree's root hash.
    public var rootHash: MerkleHash
    /// Extension lines after the root hash (C2SP tlog-checkpoint), each non-empty; a verifier
    /// that does not know one ignores it.
    public var extensions: [String]

    public init(origin: String, size: Int, rootHash: MerkleHash, extensions: [String] = []) {
        self.origin = origin
        self.size = size
        self.rootHash = rootHash
        self.extensions = extensions
    }

    /// The checkpoint's text: three lines and its extension lines, each ending in a newline.
    public var text: String { "\(origin)\n\(size)\n\(rootHash.base64)\n" + extensions.map { $0 + "\n" }.joined() }

    /// Reads a checkpoint's text (extension lines after the third are kept in ``extensions``).
    public init(text: String) throws(CheckpointError) {
        guard text.hasSuffix("\n") else { throw .malformed("the text does not end with a newline") }
        let lines = text.dropLast().split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count >= 3 else { throw .malformed("a checkpoint has an origin, a size and a root hash, one per line") }
        guard !lines[0].isEmpty else { throw .malformed("the origin line is empty") }
        guard let size = Int(lines[1]), size >= 0, String(size) == lines[1] else {
            throw .malformed("the size line \"\(lines[1])\" is not a decimal number without leading zeros")
        }
        guard let root = MerkleHash(base64: String(lines[2])) else { throw .malformed("the root hash line is not base64 of 32 bytes") }
        let extensions = lines.dropFirst(3).map(String.init)
        guard extensions.allSatisfy({ !$0.isEmpty }) else { throw .malformed("an extension line is empty") }
        self.init(origin: String(lines[0]), size: size, rootHash: root, extensions: extensions)
    }
}

/// Why a checkpoint or a signed note was refused.
public enum CheckpointError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text is not in the format.
    case malformed(String)
    /// No signature by the key given.
    case notSignedByKey(String)
    /// A signature by the key's name and hash that does not verify.
    case badSignature(String)
    /// A verifier key that is not `name+hash+base64`.
    case malformedKey(String)

    public var description: String {
        switch self {
        case .malformed(let why): "malformed: \(why)"
        case .notSignedByKey(let name): "no signature by the key \(name)"
        case .badSignature(let name): "the signature by \(name) does not verify"
        case .malformedKey(let why): "malformed verifier key: \(why)"
        }
    }
}
