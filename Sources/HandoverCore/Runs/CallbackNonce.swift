import Crypto
import Foundation
import LinkCallbacks

/// The single-use 128-bit nonce in every callback URL.
///
/// Nonces are not stored: each is HMAC-SHA256(server secret, "item id:attempt"), cut to 16 bytes.
/// Every instance that shares the database shares the secret, so any instance can check a nonce
/// or show a device its current link, and a leaked database row reveals no nonce. Single use comes
/// from the item's state: once an outcome is recorded, every nonce of that item is spent.
package struct CallbackNonce {
    package let key: SymmetricKey

    package init(key: SymmetricKey) {
        self.key = key
    }

    package func nonce(item: UUID, attempt: Int) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(item.uuidString.lowercased()):\(attempt)".utf8), using: key)
        return Base64URL.encode(Array(mac).prefix(16))
    }

    /// The attempt (1…`attempts`) a presented nonce was issued for, if any. Compared in constant time.
    package func attempt(of presented: String, item: UUID, attempts: Int) -> Int? {
        guard attempts >= 1 else { return nil }
        var found: Int?
        for attempt in 1...attempts where Self.constantTimeEqual(nonce(item: item, attempt: attempt), presented) {
            found = attempt
        }
        return found
    }

    /// How many attempts the callback fast path tries before it reads the item: an app may be
    /// reissued at most 10 times (the registry's limit), so an item has at most 11 attempts. A
    /// nonce of a later attempt still works; it only takes the slower path.
    package static let fastPathAttempts = 11

    /// The first attempt in 1…`limit` whose nonce is `presented`, if any, without reading the
    /// item. Stops at the match; each comparison is constant-time, so the time reveals at most
    /// which attempt matched, never a byte of a nonce.
    package func attempt(of presented: String, item: UUID, upTo limit: Int) -> Int? {
        guard limit >= 1 else { return nil }
        for attempt in 1...limit where Self.constantTimeEqual(nonce(item: item, attempt: attempt), presented) {
            return attempt
        }
        return nil
    }

    /// Compares two secrets in time that does not depend on where they differ.
    package static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        // swift-crypto compares digests in constant time (the same compare AppleSignIn uses).
        SHA256.hash(data: Data(a.utf8)) == SHA256.hash(data: Data(b.utf8))
    }
}
