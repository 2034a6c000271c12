import Crypto
import Fluent
import Foundation
import HandoverCore
import LinkCallbacks
import SQLKit

/// Makes API keys and finds the stored key a presented one belongs to.
///
/// A key is `hov_` followed by 32 random bytes in base64url: 256 bits, so a fast hash (SHA-256)
/// is a safe way to store it. Only the hash and an 8-character prefix (to tell keys apart in
/// lists) are kept.
public enum APIKeyIssuer {
    /// A new key and the row that stores its hash.
    static func make(name: String, scope: APIKeyScope, deviceID: UUID?, now: Date, expiresAt: Date? = nil) -> (key: String, row: APIKey) {
        APIKey.make(name: name, scope: scope, deviceID: deviceID, now: now, expiresAt: expiresAt)
    }

    /// Creates and stores a key; returns the key text, shown once.
    public static func create(name: String, scope: APIKeyScope, deviceID: UUID? = nil, expiresAt: Date? = nil, on database: Database,
                              now: Date = Date()) async throws -> String {
        let (key, row) = make(name: name, scope: scope, deviceID: deviceID, now: now, expiresAt: expiresAt)
        try await row.create(on: database)
        return key
    }

    /// The SHA-256 of a key, in hex.
    static func hash(_ key: String) -> String { BearerSecret.digest(key) }

    /// What the API needs of a live key: its id, name, scope, prefix, device and expiry.
    struct LiveKey: Decodable {
        var id: UUID
        var name: String
        var scope: String
        var key_prefix: String
        var device_id: UUID?
        var expires_at: Date?
    }

    /// The live key for a presented key, read with one SQL statement on the `key_hash` index
    /// (every API request asks: no model is built). A revoked key, or one past its expiry, is
    /// not live: every instance reads the same row, so it is refused everywhere at once.
    static func live(_ key: String, now: Date, on database: Database) async throws -> LiveKey? {
        guard key.hasPrefix("hov_"), key.utf8.count < 100 else { return nil }
        guard let sql = database as? any SQLDatabase else {
            return try await find(key, now: now, on: database).flatMap { row in
                row.id.map { LiveKey(id: $0, name: row.name, scope: row.scope, key_prefix: row.keyPrefix, device_id: row.deviceID,
                                     expires_at: row.expiresAt) }
            }
        }
        return try await sql.raw("""
            SELECT id, name, scope, key_prefix, device_id, expires_at FROM api_keys WHERE key_hash = \(bind: hash(key)) \
            AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > \(bind: now)) LIMIT 1
            """).first(decoding: LiveKey.self)
    }

    /// The live key row for a presented key, if any.
    static func find(_ key: String, now: Date, on database: Database) async throws -> APIKey? {
        guard key.hasPrefix("hov_"), key.utf8.count < 100 else { return nil }
        let row = try await APIKey.query(on: database)
            .filter(\.$keyHash == hash(key))
            .filter(\.$revokedAt == nil)
            .first()
        guard let row, row.expiresAt.map({ $0 > now }) ?? true else { return nil }
        return row
    }
}
