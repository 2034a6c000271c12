import Crypto
import Foundation

/// An envelope on the wire: the text a push, QR code or link carries.
///
/// Two forms, each ASCII from `A–Z a–z 0–9 - _ .`, so it needs no escaping in a URL:
///
/// - **plain** `v1.p.<base64url(envelope JSON)>` — when the device is not known yet (registration)
///   or the server has no key for it;
/// - **sealed** `v1.e.<keyID>.<base64url(encapsulated key)>.<base64url(ciphertext)>` — the
///   envelope JSON encrypted with HPKE (RFC 9180, base mode, `DHKEM(X25519, HKDF-SHA256)`,
///   `HKDF-SHA256`, `ChaCha20-Poly1305`) to the device's X25519 key. `info` is
///   `handover-oob/v1`; the associated data is the ASCII prefix `v1.e.<keyID>`, so the key id
///   cannot be swapped. `keyID` is ``DevicePublicKeys/agreementKeyID``.
///
/// Sealing gives confidentiality (the message, the challenge and the numbers stay off the push
/// provider's and the QR code's onlookers' screens), not authenticity: anyone can seal to a
/// public key. Authenticity comes from the redeem step — the phone redeems only at its own
/// server, and its signature binds the answer to the challenge and message (see `docs/out-of-band.md`).
///
/// A third form is the source documents' (seed 004): a ``DispatchTokenEnvelope`` as base64url
/// JSON, which a link carries in `dispatchTokenResponse` (never in `p`, a push or a bare QR
/// code). It holds another system's token and redeem URL, not a Handover operation, so it is read
/// and written but not opened.
public enum OperationPayload: Sendable, Hashable {
    /// `v1.p.…`: the envelope's JSON, unsealed.
    case plain(json: Data)
    /// `v1.e.…`: the envelope sealed to one device's key.
    case sealed(keyID: String, encapsulatedKey: Data, ciphertext: Data)
    /// The source documents' envelope, carried in `dispatchTokenResponse` as base64url JSON.
    case dispatchToken(DispatchTokenEnvelope)

    /// The longest payload text read.
    public static let maximumLength = 8192
    /// The HPKE ciphersuite of `v1.e`.
    public static let ciphersuite = HPKE.Ciphersuite.Curve25519_SHA256_ChachaPoly
    static let info = Data("handover-oob/v1".utf8)

    /// The envelope, unsealed.
    public static func plain(_ envelope: OperationEnvelope) -> OperationPayload {
        .plain(json: envelope.json())
    }

    /// The envelope sealed to `device`'s X25519 key.
    @available(iOS 17, macOS 14, tvOS 17, watchOS 10, *)
    public static func sealed(_ envelope: OperationEnvelope, to device: DevicePublicKeys) throws -> OperationPayload {
        let keyID = device.agreementKeyID
        var sender = try HPKE.Sender(recipientKey: device.agreement, ciphersuite: ciphersuite, info: info)
        let ciphertext = try sender.seal(envelope.json(), authenticating: Data("v1.e.\(keyID)".utf8))
        return .sealed(keyID: keyID, encapsulatedKey: sender.encapsulatedKey, ciphertext: ciphertext)
    }

    /// Whether the payload is sealed to a device.
    public var isSealed: Bool {
        if case .sealed = self { return true }
        return false
    }

    /// The wire text: `v1.…`, or base64url JSON for ``dispatchToken(_:)``.
    public var text: String {
        switch self {
        case .dispatchToken(let envelope):
            return Base64URL.encode(envelope.json())
        case .plain(let json):
            return "v1.p.\(Base64URL.encode(json))"
        case .sealed(let keyID, let encapsulatedKey, let ciphertext):
            return "v1.e.\(keyID).\(Base64URL.encode(encapsulatedKey)).\(Base64URL.encode(ciphertext))"
        }
    }

    /// Reads the wire text of a `v1.` payload (without opening a sealed payload).
    public init(text: String, field: String = "p") throws(OutOfBandError) {
        let accepted = "v1.p.<base64url JSON> or v1.e.<keyID>.<encapsulated key>.<ciphertext>"
        guard text.utf8.count <= Self.maximumLength else {
            throw OutOfBandError(field: field, problem: .tooLong, detail: "the payload is \(text.utf8.count) bytes long",
                                 accepted: "at most \(Self.maximumLength) bytes")
        }
        guard !text.isEmpty else {
            throw OutOfBandError(field: field, problem: .missing, detail: "the payload is empty", accepted: accepted)
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts[0] == "v1" else {
            let version = parts[0]
            if parts.count > 1, version.hasPrefix("v"), version.count > 1, version.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber }) {
                throw OutOfBandError(field: field, problem: .unsupportedVersion, detail: "the payload is version \(version.dropFirst())",
                                     accepted: "version 1 (v1.…); update the app to read newer payloads")
            }
            throw OutOfBandError(field: field, problem: .invalidPayload, detail: "the payload does not start with a version such as v1.",
                                 accepted: accepted)
        }
        switch (parts.count > 1 ? parts[1] : "", parts.count) {
        case ("p", 3):
            let json = try Base64URL.decode(parts[2], field: field)
            guard !json.isEmpty else {
                throw OutOfBandError(field: field, problem: .invalidPayload, detail: "the plain payload is empty", accepted: accepted)
            }
            self = .plain(json: json)
        case ("e", 5):
            let keyID = String(parts[2])
            let keyIDBytes = try Base64URL.decode(keyID, field: "\(field).keyID")
            guard keyIDBytes.count == 8 else {
                throw OutOfBandError(field: "\(field).keyID", problem: .invalidPayload, detail: "the key id has \(keyIDBytes.count) bytes",
                                     accepted: "base64url of 8 bytes")
            }
            let encapsulatedKey = try Base64URL.decode(parts[3], field: "\(field).encapsulatedKey")
            guard encapsulatedKey.count == 32 else {
                throw OutOfBandError(field: "\(field).encapsulatedKey", problem: .invalidPayload,
                                     detail: "the encapsulated key has \(encapsulatedKey.count) bytes", accepted: "an X25519 key of 32 bytes")
            }
            let ciphertext = try Base64URL.decode(parts[4], field: "\(field).ciphertext")
            guard ciphertext.count > 16 else {
                throw OutOfBandError(field: "\(field).ciphertext", problem: .invalidPayload,
                                     detail: "the ciphertext has \(ciphertext.count) bytes", accepted: "more than the 16-byte tag")
            }
            self = .sealed(keyID: keyID, encapsulatedKey: encapsulatedKey, ciphertext: ciphertext)
        case ("p", _), ("e", _):
            throw OutOfBandError(field: field, problem: .invalidPayload,
                                 detail: "a v1.\(parts[1]) payload has \(parts.count) dot-separated parts", accepted: accepted)
        default:
            throw OutOfBandError(field: field, problem: .invalidPayload,
                                 detail: "'\(OutOfBandError.excerpt(parts.count > 1 ? parts[1] : ""))' is not a payload kind", accepted: accepted)
        }
    }

    /// Opens the payload: decrypts a sealed one with `keys` and reads the envelope.
    ///
    /// A ``dispatchToken(_:)`` payload is refused: it is another system's token, for its own
    /// redeem URL, not an operation of this server.
    @available(iOS 17, macOS 14, tvOS 17, watchOS 10, *)
    public func open(with keys: DeviceKeys?, field: String = "p") throws(OutOfBandError) -> OperationEnvelope {
        switch self {
        case .dispatchToken:
            throw OutOfBandError(field: field, problem: .invalidPayload,
                                 detail: "the payload is the source documents' envelope, another system's token, not an operation",
                                 accepted: "a v1.p or v1.e payload")
        case .plain(let json):
            return try OperationEnvelope(json: json)
        case .sealed(let keyID, let encapsulatedKey, let ciphertext):
            guard let keys else {
                throw OutOfBandError(field: field, problem: .notForThisDevice, detail: "the payload is sealed, and this device has no keys yet",
                                     accepted: "a plain payload for registration")
            }
            let ownID = keys.publicKeys.agreementKeyID
            guard keyID == ownID else {
                throw OutOfBandError(field: field, problem: .notForThisDevice, detail: "the payload is sealed to key \(keyID)",
                                     accepted: "a payload sealed to this device's key \(ownID)")
            }
            let json: Data
            do {
                var recipient = try HPKE.Recipient(privateKey: keys.agreement, ciphersuite: Self.ciphersuite, info: Self.info,
                                                   encapsulatedKey: encapsulatedKey)
                json = try recipient.open(ciphertext, authenticating: Data("v1.e.\(keyID)".utf8))
            } catch {
                throw OutOfBandError(field: field, problem: .decryptionFailed, detail: "the sealed payload does not open with this device's key",
                                     accepted: "a payload sealed to this device and not altered since")
            }
            return try OperationEnvelope(json: json)
        }
    }
}
