import Crypto
import Foundation

/// A note signed as C2SP `signed-note` says: the text, a blank line, then one line per
/// signature, `— <key name> <base64(key hash ‖ signature)>`.
///
/// Keys are Ed25519 (signature type `0x01`); a key's 4-byte hash is the first four bytes of
/// `SHA-256(name ‖ "\n" ‖ 0x01 ‖ public key)`.
public struct SignedNote: Sendable, Hashable {
    /// The note's text, ending with a newline.
    public var text: String
    /// Each signature line's key name and its base64 field.
    public var signatures: [Signature]

    /// One signature line.
    public struct Signature: Sendable, Hashable {
        public var keyName: String
        /// Base64 of the key hash and the signature.
        public var base64: String
    }

    /// Signs `text` (which must end with a newline) with `key`.
    public static func sign(_ text: String, with key: NoteSigningKey) throws -> SignedNote {
        let signature = try key.privateKey.signature(for: Data(text.utf8))
        let field = Data(key.verifier.keyHash + Array(signature)).base64EncodedString()
        return SignedNote(text: text, signatures: [Signature(keyName: key.verifier.name, base64: field)])
    }

    /// The whole note as it is written and read.
    public var serialized: String {
        text + "\n" + signatures.map { "\u{2014} \($0.keyName) \($0.base64)\n" }.joined()
    }

    /// Reads a signed note.
    public init(serialized: String) throws(CheckpointError) {
        guard let split = serialized.range(of: "\n\n") else { throw .malformed("no blank line before the signatures") }
        let text = String(serialized[..<split.lowerBound]) + "\n"
        var signatures: [Signature] = []
        let block = serialized[split.upperBound...]
        guard block.hasSuffix("\n") else { throw .malformed("the last signature line does not end with a newline") }
        for line in block.dropLast().split(separator: "\n", omittingEmptySubsequences: false) {
            guard line.hasPrefix("\u{2014} ") else { throw .malformed("a signature line starts with \"— \"") }
            let fields = line.dropFirst(2).split(separator: " ", omittingEmptySubsequences: false)
            guard fields.count == 2, !fields[0].isEmpty else { throw .malformed("a signature line is \"— <name> <signature>\"") }
            signatures.append(Signature(keyName: String(fields[0]), base64: String(fields[1])))
        }
        guard !signatures.isEmpty else { throw .malformed("no signature") }
        self.init(text: text, signatures: signatures)
    }

    public init(text: String, signatures: [Signature]) {
        self.text = text
        self.signatures = signatures
    }

    /// Checks that the note carries a valid signature by `key`.
    public func verify(with key: NoteVerifierKey) throws(CheckpointError) {
        let mine = signatures.filter { $0.keyName == key.name }
        guard !mine.isEmpty else { throw .notSignedByKey(key.name) }
        for signature in mine {
            guard let bytes = Data(base64Encoded: signature.base64), bytes.count == 4 + 64,
                  Array(bytes.prefix(4)) == key.keyHash else { continue }
            if key.publicKey.isValidSignature(bytes.dropFirst(4), for: Data(text.utf8)) { return }
            throw .badSignature(key.name)
        }
        throw .notSignedByKey(key.name)
    }
}

/// The public half of a note key, written as C2SP says: `<name>+<hex key hash>+<base64(0x01 ‖ key)>`.
public struct NoteVerifierKey: Sendable, Hashable, CustomStringConvertible {
    /// The key's name; checkpoints use the log's origin.
    public let name: String
    /// The Ed25519 public key.
    public let publicKey: Curve25519.Signing.PublicKey
    /// The first four bytes of `SHA-256(name ‖ "\n" ‖ 0x01 ‖ public key)`.
    public let keyHash: [UInt8]

    public init(name: String, publicKey: Curve25519.Signing.PublicKey) throws(CheckpointError) {
        guard !name.isEmpty, !name.contains("+"), !name.unicodeScalars.contains(where: { $0.properties.isWhitespace }) else {
            throw .malformedKey("a key name is not empty and has no \"+\" and no space")
        }
        self.name = name
        self.publicKey = publicKey
        var hasher = SHA256()
        hasher.update(data: Data(name.utf8) + [0x0A, 0x01] + publicKey.rawRepresentation)
        self.keyHash = Array(hasher.finalize().prefix(4))
    }

    public static func == (a: NoteVerifierKey, b: NoteVerifierKey) -> Bool { a.description == b.description }

    public func hash(into hasher: inout Hasher) { hasher.combine(description) }

    /// Reads `<name>+<hex key hash>+<base64(0x01 ‖ key)>`, and checks the hash.
    public init(_ text: String) throws(CheckpointError) {
        let parts = text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "+", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformedKey("it has three fields joined by \"+\"") }
        guard let raw = Data(base64Encoded: String(parts[2])), raw.count == 33, raw.first == 0x01 else {
            throw .malformedKey("the third field is base64 of 0x01 and a 32-byte Ed25519 key")
        }
        let key: Curve25519.Signing.PublicKey
        do { key = try Curve25519.Signing.PublicKey(rawRepresentation: raw.dropFirst()) } catch {
            throw .malformedKey("the third field is not an Ed25519 key")
        }
        try self.init(name: String(parts[0]), publicKey: key)
        guard parts[1].lowercased() == keyHash.map({ String(format: "%02x", $0) }).joined() else {
            throw .malformedKey("the key hash \(parts[1]) does not match the name and the key")
        }
    }

    /// The key as C2SP writes it.
    public var description: String {
        "\(name)+\(keyHash.map { String(format: "%02x", $0) }.joined())+\((Data([0x01]) + publicKey.rawRepresentation).base64EncodedString())"
    }
}

/// An Ed25519 key that signs notes, with its name.
public struct NoteSigningKey: Sendable {
    public let privateKey: Curve25519.Signing.PrivateKey
    public let verifier: NoteVerifierKey

    public init(name: String, privateKey: Curve25519.Signing.PrivateKey) throws(CheckpointError) {
        self.privateKey = privateKey
        self.verifier = try NoteVerifierKey(name: name, publicKey: privateKey.publicKey)
    }
}
