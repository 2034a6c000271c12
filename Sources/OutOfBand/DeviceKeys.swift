import Crypto
import Foundation

/// The phone's two keys for out-of-band operations: a P-256 key that signs its answers, and an
/// X25519 key that envelopes are sealed to.
///
/// The private parts never leave the device; ``publicKeys`` is what the phone enrolls with the
/// server. Keep the keys in the Keychain on iOS (``rawRepresentation`` is the 64 bytes to store).
///
/// ```swift
/// let keys = DeviceKeys.generate()
/// let enrollment = keys.publicKeys          // {"signingKey":"BN3…","agreementKey":"k2…"}
/// let answer = try keys.sign(answer)        // base64url signature
/// ```
public struct DeviceKeys: Sendable {
    public let signing: P256.Signing.PrivateKey
    public let agreement: Curve25519.KeyAgreement.PrivateKey

    public init(signing: P256.Signing.PrivateKey, agreement: Curve25519.KeyAgreement.PrivateKey) {
        self.signing = signing
        self.agreement = agreement
    }

    /// Two new keys.
    public static func generate() -> DeviceKeys {
        DeviceKeys(signing: P256.Signing.PrivateKey(), agreement: Curve25519.KeyAgreement.PrivateKey())
    }

    /// The public halves, for enrollment.
    public var publicKeys: DevicePublicKeys {
        DevicePublicKeys(signing: signing.publicKey, agreement: agreement.publicKey)
    }

    /// The private keys as 64 bytes: the P-256 scalar, then the X25519 scalar.
    public var rawRepresentation: Data { signing.rawRepresentation + agreement.rawRepresentation }

    /// Reads ``rawRepresentation``.
    public init(rawRepresentation data: Data) throws(OutOfBandError) {
        guard data.count == 64 else {
            throw OutOfBandError(field: "deviceKeys", problem: .invalidKey, detail: "the stored keys are \(data.count) bytes",
                                 accepted: "64 bytes: a P-256 private key then an X25519 private key")
        }
        do {
            signing = try P256.Signing.PrivateKey(rawRepresentation: data.prefix(32))
            agreement = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: data.suffix(32))
        } catch {
            throw OutOfBandError(field: "deviceKeys", problem: .invalidKey, detail: "the stored keys do not decode (\(error))",
                                 accepted: "64 bytes: a P-256 private key then an X25519 private key")
        }
    }

    /// Signs `answer`'s canonical bytes: ECDSA P-256 with SHA-256, the raw 64-byte `r‖s` as base64url.
    public func sign(_ answer: OperationAnswer) throws -> String {
        Base64URL.encode(try signing.signature(for: answer.canonicalBytes).rawRepresentation)
    }
}

/// The public halves of ``DeviceKeys``, as a phone enrolls them and a server stores them.
///
/// JSON: `{"signingKey": base64url(P-256 x9.63, 65 bytes), "agreementKey": base64url(X25519 raw, 32 bytes)}`.
public struct DevicePublicKeys: Sendable, Codable {
    public let signing: P256.Signing.PublicKey
    public let agreement: Curve25519.KeyAgreement.PublicKey

    public init(signing: P256.Signing.PublicKey, agreement: Curve25519.KeyAgreement.PublicKey) {
        self.signing = signing
        self.agreement = agreement
    }

    /// Reads the base64url texts of an enrollment.
    public init(signingKey: String, agreementKey: String) throws(OutOfBandError) {
        let signingBytes = try Base64URL.decode(signingKey, field: "signingKey")
        let agreementBytes = try Base64URL.decode(agreementKey, field: "agreementKey")
        do { signing = try P256.Signing.PublicKey(x963Representation: signingBytes) } catch {
            throw OutOfBandError(field: "signingKey", problem: .invalidKey, detail: "it is not a P-256 public key (\(signingBytes.count) bytes)",
                                 accepted: "base64url of an uncompressed P-256 point (x9.63, 65 bytes starting with 0x04)")
        }
        do { agreement = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: agreementBytes) } catch {
            throw OutOfBandError(field: "agreementKey", problem: .invalidKey, detail: "it is not an X25519 public key (\(agreementBytes.count) bytes)",
                                 accepted: "base64url of a raw X25519 public key (32 bytes)")
        }
    }

    /// base64url of the P-256 key's x9.63 form (65 bytes).
    public var signingKeyText: String { Base64URL.encode(signing.x963Representation) }
    /// base64url of the X25519 key's raw form (32 bytes).
    public var agreementKeyText: String { Base64URL.encode(agreement.rawRepresentation) }

    /// A short id of the agreement key (base64url of the first 8 bytes of its SHA-256), written
    /// into sealed payloads so a phone can tell "sealed to another device" from "tampered".
    public var agreementKeyID: String { Self.keyID(of: agreement) }

    /// A stable id derived from the signing key (base64url of the first 16 bytes of SHA-256 of
    /// its x9.63 form). A phone may use it as its `deviceID` when the server assigns none.
    public var fingerprint: String {
        Base64URL.encode(SHA256.hash(data: signing.x963Representation).prefix(16))
    }

    static func keyID(of key: Curve25519.KeyAgreement.PublicKey) -> String {
        Base64URL.encode(SHA256.hash(data: key.rawRepresentation).prefix(8))
    }

    /// Checks a raw 64-byte `r‖s` ECDSA P-256 signature (base64url) over `answer`'s canonical bytes.
    public func isValidSignature(_ signature: String, for answer: OperationAnswer) -> Bool {
        guard let bytes = try? Base64URL.decode(signature, field: "signature"), bytes.count == 64,
              let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: bytes) else { return false }
        return signing.isValidSignature(parsed, for: answer.canonicalBytes)
    }

    private enum CodingKeys: String, CodingKey { case signingKey, agreementKey }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(signingKey: container.decode(String.self, forKey: .signingKey),
                      agreementKey: container.decode(String.self, forKey: .agreementKey))
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(signingKeyText, forKey: .signingKey)
        try container.encode(agreementKeyText, forKey: .agreementKey)
    }
}

extension DevicePublicKeys: Equatable, Hashable {
    public static func == (lhs: DevicePublicKeys, rhs: DevicePublicKeys) -> Bool {
        lhs.signing.x963Representation == rhs.signing.x963Representation
            && lhs.agreement.rawRepresentation == rhs.agreement.rawRepresentation
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(signing.x963Representation)
        hasher.combine(agreement.rawRepresentation)
    }
}
