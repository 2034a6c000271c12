import Crypto
import Foundation

/// Encrypts secrets kept at rest (Apple refresh tokens, the server's signing keys) with
/// AES-256-GCM. The sealed form is base64 of `nonce ‖ ciphertext ‖ tag`; a value sealed under
/// another key, or altered, does not open.
public struct SecretSealer: Sendable {
    private let key: SymmetricKey

    /// - Parameter key: 32 bytes.
    public init(key: SymmetricKey) throws(SecretSealerError) {
        guard key.bitCount == 256 else { throw .wrongKeySize(bytes: key.bitCount / 8) }
        self.key = key
    }

    /// Reads a key written as base64 (44 characters for 32 bytes), as in `HANDOVER_TOKEN_ENCRYPTION_KEY`.
    public init(base64 text: String) throws(SecretSealerError) {
        guard let data = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw .notBase64
        }
        try self.init(key: SymmetricKey(data: data))
    }

    /// A new random key, as base64.
    public static func generateKeyBase64() -> String {
        SymmetricKey(size: .bits256).withUnsafeBytes { Data($0).base64EncodedString() }
    }

    /// A keyed digest of `text` for `purpose`: HMAC-SHA256 under a key derived from this one
    /// with HKDF (the purpose as its info), in hex. What is kept of a value that must never be
    /// stored or logged as such, such as a badge number, while the same value still finds the
    /// same records.
    ///
    /// - Parameters:
    ///   - text: The value to digest.
    ///   - purpose: What the digest is for, so that digests for two purposes never match.
    public func keyedDigest(_ text: String, purpose: String) -> String {
        let derived = HKDF<SHA256>.deriveKey(inputKeyMaterial: key, info: Data(purpose.utf8), outputByteCount: 32)
        return HMAC<SHA256>.authenticationCode(for: Data(text.utf8), using: derived).map { String(format: "%02x", $0) }.joined()
    }

    public func seal(_ plaintext: Data) throws -> String {
        guard let combined = try AES.GCM.seal(plaintext, using: key).combined else { throw SecretSealerError.cannotSeal }
        return combined.base64EncodedString()
    }

    public func seal(_ text: String) throws -> String { try seal(Data(text.utf8)) }

    public func open(_ sealed: String) throws(SecretSealerError) -> Data {
        guard let combined = Data(base64Encoded: sealed) else { throw .notBase64 }
        do {
            return try AES.GCM.open(AES.GCM.SealedBox(combined: combined), using: key)
        } catch {
            throw .cannotOpen
        }
    }

    public func openString(_ sealed: String) throws(SecretSealerError) -> String {
        String(decoding: try open(sealed), as: UTF8.self)
    }
}

/// Why a secret could not be sealed or opened.
public enum SecretSealerError: Error, Equatable, Sendable, CustomStringConvertible {
    case wrongKeySize(bytes: Int)
    case notBase64
    case cannotSeal
    /// Wrong key, or the stored value was altered.
    case cannotOpen

    public var description: String {
        switch self {
        case .wrongKeySize(let bytes): "the encryption key has \(bytes) bytes; it must have 32 (base64 of 32 random bytes)"
        case .notBase64: "the value is not base64"
        case .cannotSeal: "AES-GCM could not seal the value"
        case .cannotOpen: "the sealed value does not open with this key (another key, or altered)"
        }
    }
}
