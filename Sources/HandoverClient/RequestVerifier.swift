import Crypto
import Foundation
import LinkCallbacks

/// Checks signed ULCs: a receiver configured with trusted keys and `requireSignedRequests`
/// refuses links that are unsigned, tampered with, signed by another key, or older than
/// ``maximumAge``.
public struct RequestVerifier: Sendable {
    /// Keys whose signatures are accepted.
    public var trustedKeys: [P256.Signing.PublicKey]
    /// How old (or how far in the future, for clock skew) `ulc-ts` may be: 60 s by default.
    public var maximumAge: Duration

    public init(trustedKeys: [P256.Signing.PublicKey], maximumAge: Duration = .seconds(60)) {
        self.trustedKeys = trustedKeys
        self.maximumAge = maximumAge
    }

    /// Throws a ``SignatureRejection`` unless `ulc` carries a fresh, valid signature by a trusted key.
    public func verify(_ ulc: UniversalLinkCallback, now: Date) throws(SignatureRejection) {
        guard let timestamp = ulc.timestamp, let signatureText = ulc.signature else {
            throw .unsigned
        }
        let age = Int64(now.timeIntervalSince1970.rounded(.down)) - timestamp
        let limit = maximumAge.components.seconds
        guard age <= limit else { throw .expired(ageSeconds: age, limitSeconds: limit) }
        guard age >= -limit else { throw .fromTheFuture(aheadSeconds: -age, limitSeconds: limit) }
        guard let raw = try? Base64URL.decode(signatureText, parameter: "ulc-sig"),
              let signature = try? P256.Signing.ECDSASignature(rawRepresentation: raw) else {
            throw .malformedSignature
        }
        let message = SignedRequestCanonicalForm.bytes(for: ulc.unsigned, timestamp: timestamp)
        guard trustedKeys.contains(where: { $0.isValidSignature(signature, for: message) }) else {
            throw .badSignature
        }
    }
}

/// Why a signed-request check refused a link.
public enum SignatureRejection: Error, Sendable, Equatable, CustomStringConvertible {
    case unsigned
    case malformedSignature
    case badSignature
    case expired(ageSeconds: Int64, limitSeconds: Int64)
    case fromTheFuture(aheadSeconds: Int64, limitSeconds: Int64)

    public var description: String {
        switch self {
        case .unsigned: "the link has no ulc-ts and ulc-sig, and this receiver requires signed requests"
        case .malformedSignature: "ulc-sig is not a base64url 64-byte ECDSA P-256 signature"
        case .badSignature: "ulc-sig does not verify with any trusted key: the link was altered or signed by an unknown key"
        case .expired(let age, let limit): "the link was signed \(age) s ago; at most \(limit) s is accepted"
        case .fromTheFuture(let ahead, let limit): "ulc-ts is \(ahead) s in the future; at most \(limit) s of clock skew is accepted"
        }
    }
}
