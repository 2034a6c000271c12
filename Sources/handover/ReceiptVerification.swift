import Crypto
import Foundation
import HandoverProtocol
import LinkCallbacks

/// Verifies a hand-over's receipt offline: a compact JWS, `typ` `handover-receipt+jwt`, ES256,
/// signed by the key its `kid` names in a JWKS (RFC 7515 §5.2, RFC 7518 §3.4: the signature is
/// the 64 bytes R ‖ S).
enum ReceiptVerification {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Returns the receipt's claims, pretty-printed JSON, when it verifies.
    static func verify(_ token: String, jwks: Data) throws -> String {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = try? Base64URL.decode(String(parts[0])),
              let payload = try? Base64URL.decode(String(parts[1])), let signature = try? Base64URL.decode(String(parts[2])) else {
            throw Failure(description: "not a compact JWS (three base64url parts)")
        }
        guard let header = try? JSONSerialization.jsonObject(with: headerBytes) as? [String: Any] else {
            throw Failure(description: "its header is not a JSON object")
        }
        guard header["typ"] as? String == RunReceipt.headerType else { throw Failure(description: "typ is not \(RunReceipt.headerType)") }
        guard header["alg"] as? String == "ES256" else { throw Failure(description: "alg is not ES256") }
        guard let kid = header["kid"] as? String else { throw Failure(description: "no kid in the header") }
        guard let set = try? JSONSerialization.jsonObject(with: jwks) as? [String: Any], let keys = set["keys"] as? [[String: Any]] else {
            throw Failure(description: "the JWKS is not a JSON object with \"keys\"")
        }
        guard let jwk = keys.first(where: { $0["kid"] as? String == kid }) else {
            throw Failure(description: "the JWKS has no key \(kid) (a key retired from it signed older receipts: keep the JWKS of the time)")
        }
        guard jwk["kty"] as? String == "EC", jwk["crv"] as? String == "P-256",
              let x = (jwk["x"] as? String).flatMap({ try? Base64URL.decode($0) }), let y = (jwk["y"] as? String).flatMap({ try? Base64URL.decode($0) }),
              x.count == 32, y.count == 32,
              let key = try? P256.Signing.PublicKey(x963Representation: Data([0x04]) + x + y) else {
            throw Failure(description: "key \(kid) is not an EC P-256 key")
        }
        guard let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature),
              key.isValidSignature(ecdsa, for: Data("\(parts[0]).\(parts[1])".utf8)) else {
            throw Failure(description: "the signature does not verify with key \(kid)")
        }
        guard (try? JSONDecoder().decode(RunReceipt.self, from: payload)) != nil,
              let object = try? JSONSerialization.jsonObject(with: payload),
              let pretty = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]) else {
            throw Failure(description: "the signed claims are not a receipt")
        }
        return String(decoding: pretty, as: UTF8.self)
    }
}
