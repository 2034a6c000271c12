import Crypto
import Foundation
import LinkCallbacks

/// A JWK Set (RFC 7517 section 5) of the server's public session keys, as `jwks_uri` serves it.
///
/// Every key that can still verify a live token is in the set, and a new key is published one
/// publication lead before it signs (``SessionKeyRing/publicKeys``), so a backend that caches the
/// set for at most that long never meets a `kid` it has not seen.
public struct JSONWebKeySet: Codable, Equatable, Sendable {
    public var keys: [JSONWebKey]

    public init(keys: [JSONWebKey]) { self.keys = keys }
}

/// One public EC key in JWK form (RFC 7517, RFC 7518 section 6.2): P-256, for ES256 signatures.
public struct JSONWebKey: Codable, Equatable, Sendable {
    /// `kty`: always `EC`.
    public var keyType = "EC"
    /// `crv`: always `P-256`.
    public var curve = "P-256"
    /// `x`, `y`: the public point's coordinates, base64url without padding.
    public var x: String
    public var y: String
    /// `kid`: the value in the JWT header of tokens this key signs.
    public var keyID: String
    /// `alg`: always `ES256`.
    public var algorithm = "ES256"
    /// `use`: always `sig`.
    public var use = "sig"

    enum CodingKeys: String, CodingKey {
        case keyType = "kty", curve = "crv", x, y, keyID = "kid", algorithm = "alg", use
    }

    /// The public half of `key`.
    public init(_ key: SessionSigningKey) {
        let point = key.privateKey.publicKey.x963Representation
        x = Base64URL.encode(point.dropFirst().prefix(32))
        y = Base64URL.encode(point.dropFirst(33))
        keyID = key.keyID
    }
}
