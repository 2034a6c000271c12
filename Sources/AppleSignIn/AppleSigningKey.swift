import Foundation
import JWTKit

/// One of Apple's RSA public keys, parsed once from the key set and kept for as long as Apple
/// publishes it. Signatures are checked by jwt-kit: the key sits alone, as RS256 under its `kid`,
/// in a `JWTKeyCollection`.
public struct AppleSigningKey: Sendable {
    /// The key id (`kid`) tokens name in their header.
    public let keyID: String
    /// This key alone, as an RS256 verifier.
    let verifier: JWTKeyCollection
    /// The base64url modulus and exponent as published, to tell an unchanged key from a new one.
    let modulus: String
    let exponent: String

    /// Parses an RSA key from its JWK fields (base64url `n` and `e`); keys under 2048 bits are refused.
    init(keyID: String, modulus: String, exponent: String) async throws(AppleJWTError) {
        let key: Insecure.RSA.PublicKey
        do {
            key = try Insecure.RSA.PublicKey(modulus: modulus, exponent: exponent)
        } catch {
            throw .malformed("key \(keyID): not an RSA public key (\(error))")
        }
        self.keyID = keyID
        self.verifier = await JWTKeyCollection().add(rsa: key, digestAlgorithm: .sha256, kid: JWKIdentifier(string: keyID))
        self.modulus = modulus
        self.exponent = exponent
    }

    /// Checks the token's RS256 signature with this key, then decodes its payload.
    func verify<Claims: AppleRegisteredClaims>(_ token: String, as: Claims.Type) async throws(AppleJWTError) -> Claims {
        do {
            return try await verifier.verify(token, as: Claims.self)
        } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
            throw .badSignature
        } catch {
            throw .malformed("payload: \(SignedAppleJWT<Claims>.describe(error))")
        }
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
    func signingKeys(reusing previous: [String: AppleSigningKey]) async -> [String: AppleSigningKey] {
        var result: [String: AppleSigningKey] = [:]
        for key in keys {
            guard key.kty == "RSA", let kid = key.kid, let n = key.n, let e = key.e,
                  key.use == nil || key.use == "sig", key.alg == nil || key.alg == "RS256" else { continue }
            if let old = previous[kid], old.modulus == n, old.exponent == e {
                result[kid] = old
            } else if let parsed = try? await AppleSigningKey(keyID: kid, modulus: n, exponent: e) {
                result[kid] = parsed
            }
        }
        return result
    }
}
