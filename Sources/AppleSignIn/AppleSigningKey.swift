import Crypto
import CryptoExtras
import Foundation

/// One of Apple's RSA public keys, parsed once from the key set and kept for as long as Apple
/// publishes it.
public struct AppleSigningKey: Sendable {
    /// The key id (`kid`) tokens name in their header.
    public let keyID: String
    let publicKey: _RSA.Signing.PublicKey
    /// The base64url modulus and exponent as published, to tell an unchanged key from a new one.
    let modulus: String
    let exponent: String

    /// Parses an RSA key from its JWK fields (base64url `n` and `e`); keys under 2048 bits are refused.
    init(keyID: String, modulus: String, exponent: String) throws(AppleJWTError) {
        guard let n = Base64URL.decode(modulus), let e = Base64URL.decode(exponent) else {
            throw .malformed("key \(keyID): modulus or exponent is not base64url")
        }
        let key: _RSA.Signing.PublicKey
        do {
            key = try _RSA.Signing.PublicKey(n: n, e: e)
        } catch {
            throw .malformed("key \(keyID): not an RSA public key (\(error))")
        }
        guard key.keySizeInBits >= 2048 else { throw .malformed("key \(keyID): \(key.keySizeInBits)-bit RSA is too small") }
        self.keyID = keyID
        self.publicKey = key
        self.modulus = modulus
        self.exponent = exponent
    }

    /// Whether `signature` is a valid RSASSA-PKCS1-v1_5 SHA-256 signature (RS256) of `message`.
    func isValidRS256Signature(_ signature: Data, for message: Data) -> Bool {
        publicKey.isValidSignature(
            _RSA.Signing.RSASignature(rawRepresentation: signature),
            for: SHA256.hash(data: message),
            padding: .insecurePKCS1v1_5
        )
    }
}

/// The JSON of `GET /auth/keys`, read tolerantly: keys that are not RSA signing keys are skipped
/// rather than failing the whole set.
struct JSONWebKeySet: Decodable {
    struct Key: Decodable {
        var kty: String?
        var kid: String?
        var use: String?
        var alg: String?
        var n: String?
        var e: String?
    }

    var keys: [Key]

    /// The RS256 keys of the set, by key id. Keys already parsed in `previous` are reused unchanged.
    func signingKeys(reusing previous: [String: AppleSigningKey]) -> [String: AppleSigningKey] {
        var result: [String: AppleSigningKey] = [:]
        for key in keys {
            guard key.kty == "RSA", let kid = key.kid, let n = key.n, let e = key.e,
                  key.use == nil || key.use == "sig", key.alg == nil || key.alg == "RS256" else { continue }
            if let old = previous[kid], old.modulus == n, old.exponent == e {
                result[kid] = old
            } else if let parsed = try? AppleSigningKey(keyID: kid, modulus: n, exponent: e) {
                result[kid] = parsed
            }
        }
        return result
    }
}
