import Crypto
import Foundation
import LinkCallbacks

/// The secrets this server hands out (API keys, dashboard session and CSRF tokens): 256 random
/// bits in base64url, stored only as their SHA-256. With that much entropy a fast hash is a safe
/// way to store them.
package enum BearerSecret {
    /// 32 random bytes, base64url-encoded (43 characters).
    package static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// The SHA-256 of a secret, in hex: what the database keeps.
    package static func digest(_ secret: String) -> String {
        Hex.lowercase(SHA256.hash(data: Data(secret.utf8)))
    }
}
