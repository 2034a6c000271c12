import Crypto
import FluentKit
import Foundation
import HandoverSchema
import LinkCallbacks

/// Makes API keys and finds the stored key a presented one belongs to.
///
/// A key is `hov_` followed by 32 random bytes in base64url: 256 bits, so a fast hash (SHA-256)
/// is a safe way to store it. Only the hash and an 8-character prefix (to tell keys apart in
/// lists) are kept.
public enum APIKeyIssuer {
    /// A new key and the row that stores its hash.
    package static func make(name: String, scope: APIKeyScope, deviceID: UUID?, now: Date, expiresAt: Date? = nil) -> (key: String, row: APIKey) {
        APIKey.make(name: name, scope: scope, deviceID: deviceID, now: now, expiresAt: expiresAt)
    }

    /// Creates and stores a key; returns the key text, shown once.
    public static func create(name: String, scope: APIKeyScope, deviceID: UUID? = nil, expiresAt: Date? = nil, site: SiteName? = nil,
                              on database: Database, now: Date = Date()) async throws -> String {
        let (key, row) = make(name: name, scope: scope, deviceID: deviceID, now: now, expiresAt: expiresAt)
        row.site = site?.text
        try await row.create(on: database)
        return key
    }

    /// The SHA-256 of a key, in hex.
    package static func hash(_ key: String) -> String { BearerSecret.digest(key) }

    /// The live key row for a presented key, if any.
    package static func find(_ key: String, now: Date, on database: Database) async throws -> APIKey? {
        guard key.hasPrefix("hov_"), key.utf8.count < 100 else { return nil }
        let row = try await APIKey.query(on: database)
            .filter(\.$keyHash == hash(key))
            .filter(\.$revokedAt == nil)
            .first()
        guard let row, row.expiresAt.map({ $0 > now }) ?? true else { return nil }
        return row
    }

    /// Whether the database holds an admin key (revoked or not): a first start has none.
    public static func adminKeyExists(on database: Database) async throws -> Bool {
        try await APIKey.query(on: database).filter(\.$scope == APIKeyScope.admin.rawValue).count() > 0
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
