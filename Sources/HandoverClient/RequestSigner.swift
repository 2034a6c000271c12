import Crypto
import Foundation
import LinkCallbacks

/// Signs ULCs for the signed-requests extension: adds `ulc-ts` (unix seconds) and `ulc-sig`
/// (base64url of the 64-byte raw ECDSA P-256 / SHA-256 signature over
/// ``SignedRequestCanonicalForm``). Plain receivers ignore both parameters.
public struct RequestSigner: Sendable {
    private let key: P256.Signing.PrivateKey

    public init(privateKey: P256.Signing.PrivateKey) {
        key = privateKey
    }

    /// The public key a receiver should trust, as raw x963 bytes.
    public var publicKey: P256.Signing.PublicKey { key.publicKey }

    /// `ulc` with `ulc-ts` set to `timestamp` and `ulc-sig` over the canonical form.
    public func sign(_ ulc: UniversalLinkCallback, timestamp: Int64) throws -> UniversalLinkCallback {
        let plain = ulc.unsigned
        let signature = try key.signature(for: SignedRequestCanonicalForm.bytes(for: plain, timestamp: timestamp))
        return try UniversalLinkCallback(action: plain.action, success: plain.success, error: plain.error,
                                         timestamp: timestamp, signature: Base64URL.encode(signature.rawRepresentation))
    }
}
