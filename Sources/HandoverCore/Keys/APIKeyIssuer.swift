import Crypto
import Foundation
import HandoverSchema
import LinkCallbacks

/// Makes API keys and finds the stored key a presented one belongs to.
///
/// A key is `hov_` followed by 32 random bytes in base64url: 256 bits, so a fast hash (SHA-256)
/// is a safe way to store it. Only the hash and an 8-character prefix (to tell keys apart in
/// lists) are kept. The statements are ``KeyStore``'s; the public functions that store a key
/// (``create(name:scope:deviceID:expiresAt:site:on:now:)``) and ask whether an admin key exists
/// (``adminKeyExists(on:)``) are declared beside them, as their signatures name FluentKit's
/// `Database`.
public enum APIKeyIssuer {
    /// A new key and the row that stores its hash.
    package static func make(name: String, scope: APIKeyScope, deviceID: UUID?, now: Date, expiresAt: Date? = nil) -> (key: String, row: APIKey) {
        APIKey.make(name: name, scope: scope, deviceID: deviceID, now: now, expiresAt: expiresAt)
    }

    /// The SHA-256 of a key, in hex.
    package static func hash(_ key: String) -> String { BearerSecret.digest(key) }

    /// The live key row for a presented key, if any.
    package static func find(_ key: String, now: Date, on database: DatabaseHandle) async throws -> APIKey? {
        guard key.hasPrefix("hov_"), key.utf8.count < 100 else { return nil }
        let row = try await KeyStore(database).unrevokedKey(hash: hash(key))
        guard let row, row.expiresAt.map({ $0 > now }) ?? true else { return nil }
        return row
    }
}

extension APIKey {
    /// A new key, `hov_` and 32 random bytes in base64url (256 bits, so a fast hash is a safe way
    /// to store it), and the row that keeps only its SHA-256 and its first 12 characters.
    package static func make(name: String, scope: APIKeyScope, deviceID: UUID?, now: Date,
                             expiresAt: Date? = nil) -> (key: String, row: APIKey) {
        let key = "hov_" + BearerSecret.random()
        let row = APIKey(name: name, scope: scope, keyHash: BearerSecret.digest(key), keyPrefix: String(key.prefix(12)),
                         deviceID: deviceID, createdAt: now)
        row.expiresAt = expiresAt
        return (key, row)
    }
}
