import Crypto
import Foundation

/// A SHA-256 hash in a Merkle tree: of a leaf, of a node, or of a whole tree (its root).
public struct MerkleHash: Sendable, Hashable, CustomStringConvertible {
    /// The 32 bytes.
    public let bytes: [UInt8]

    /// Wraps 32 bytes; nil for any other length.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 32 else { return nil }
        self.bytes = Array(bytes)
    }

    /// Reads standard base64 (RFC 4648 §4), as checkpoints and proofs carry hashes; nil unless it
    /// decodes to exactly 32 bytes.
    public init?(base64: String) {
        guard let data = Data(base64Encoded: base64) else { return nil }
        self.init(bytes: data)
    }

    private init(digest: SHA256.Digest) {
        self.bytes = Array(digest)
    }

    /// The leaf hash of an entry's exact bytes: `SHA-256(0x00 ‖ entry)` (RFC 9162 §2.1.1).
    public static func leaf(_ entry: some DataProtocol) -> MerkleHash {
        var hasher = SHA256()
        hasher.update(data: [0x00])
        hasher.update(data: entry)
        return MerkleHash(digest: hasher.finalize())
    }

    /// The hash of an inner node: `SHA-256(0x01 ‖ left ‖ right)` (RFC 9162 §2.1.1).
    public static func node(_ left: MerkleHash, _ right: MerkleHash) -> MerkleHash {
        var hasher = SHA256()
        hasher.update(data: [0x01])
        hasher.update(data: left.bytes)
        hasher.update(data: right.bytes)
        return MerkleHash(digest: hasher.finalize())
    }

    /// The root of the empty tree: the hash of the empty string.
    public static let empty = MerkleHash(digest: SHA256.hash(data: [UInt8]()))

    /// Standard base64 with padding.
    public var base64: String { Data(bytes).base64EncodedString() }

    /// Lower-case hexadecimal.
    public var hex: String { bytes.map { String(format: "%02x", $0) }.joined() }

    public var description: String { hex }
}
