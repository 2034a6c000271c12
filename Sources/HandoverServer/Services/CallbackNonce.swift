import Crypto
import Foundation
import LinkCallbacks

/// The single-use 128-bit nonce in every callback URL.
///
/// Nonces are not stored: each is HMAC-SHA256(server secret, "item id:attempt"), cut to 16 bytes.
/// Every instance that shares the database shares the secret, so any instance can check a nonce
/// or show a device its current link, and a leaked database row reveals no nonce. Single use comes
/// from the item's state: once an outcome is recorded, every nonce of that item is spent.
struct CallbackNonce {
    let key: SymmetricKey

    func nonce(item: UUID, attempt: Int) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(item.uuidString.lowercased()):\(attempt)".utf8), using: key)
        return Base64URL.encode(Array(mac).prefix(16))
    }

    /// The attempt (1…`attempts`) a presented nonce was issued for, if any. Compared in constant time.
    func attempt(of presented: String, item: UUID, attempts: Int) -> Int? {
        guard attempts >= 1 else { return nil }
        var found: Int?
        for attempt in 1...attempts where Self.constantTimeEqual(nonce(item: item, attempt: attempt), presented) {
            found = attempt
        }
        return found
    }

    /// Compares two nonces in time that depends only on their length.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }
}
