import FluentKit
import SQLKit
import Foundation

/// A stored API key: only its SHA-256 hash is kept; the key itself is shown once at creation.
package final class APIKey: Model, @unchecked Sendable {
    package static let schema = "api_keys"

    @ID(key: .id) package var id: UUID?
    @Field(key: "name") package var name: String
    @Field(key: "scope") package var scope: String
    @Field(key: "key_hash") package var keyHash: String
    @Field(key: "key_prefix") package var keyPrefix: String
    @OptionalField(key: "device_id") package var deviceID: UUID?
    @Field(key: "created_at") package var createdAt: Date
    @OptionalField(key: "revoked_at") package var revokedAt: Date?
    /// When it stops working, for a key made with an expiry.
    @OptionalField(key: "expires_at") package var expiresAt: Date?
    /// When it was last used, to the minute (noted in memory, written in batches: ``KeyUses``).
    @OptionalField(key: "last_used_at") package var lastUsedAt: Date?
    /// The one site a person's or service's key is for: such a key opens only the dashboard,
    /// with its role at that site (a ward's wall screen); nil for every site.
    @OptionalField(key: "site") package var site: String?

    package init() {}

    package init(name: String, scope: APIKeyScope, keyHash: String, keyPrefix: String, deviceID: UUID?, createdAt: Date) {
        self.name = name
        self.scope = scope.rawValue
        self.keyHash = keyHash
        self.keyPrefix = keyPrefix
        self.deviceID = deviceID
        self.createdAt = createdAt
    }
}

/// What a key may do.
///
/// A named credential for a person or a service carries a role (`viewer`, `operator`, `admin`,
/// as the dashboard's people have); a device key acts for its own device only.
public enum APIKeyScope: String, Codable, Sendable, CaseIterable {
    /// Everything: the registry, webhooks, every device's runs.
    case admin
    /// Acts on devices: starts runs, puts devices back in service, registers devices; reads everything.
    case `operator`
    /// Reads: devices, runs, history, apps, webhooks.
    case viewer
    /// One device: start its own logout runs, read them, report callbacks.
    case device

    /// The role a person-or-service key carries; nil for a device key.
    package var role: AdminRole? {
        switch self {
        case .admin: .admin
        case .operator: .operator
        case .viewer: .viewer
        case .device: nil
        }
    }
}

extension APIKey {
    /// Marks the key revoked at `now` inside the caller's transaction, and ends the dashboard
    /// sessions it signed in (deleted with it); a device key's revocation is also CAEP
    /// credential-change for Shared Signals. Returns the sessions that ended, or nil when the key
    /// was revoked already (revoking is final). ``KeyRevocation`` wraps it and announces the end.
    package func revoke(at now: Date, inTransaction db: any Database) async throws -> [UUID]? {
        guard revokedAt == nil else { return nil }
        revokedAt = now
        try await update(on: db)
        let sessions = try await DashboardSession.query(on: db).filter(\.$apiKeyID == requireID()).all().compactMap(\.id)
        if !sessions.isEmpty { try await DashboardSession.query(on: db).filter(\.$id ~~ sessions).delete() }
        // Shared Signals: a device's key revoked is CAEP credential-change, in the same transaction.
        if let device = deviceID, let sql = db as? any SQLDatabase {
            let name = name
            try await SharedSignalsOutbox.enqueue(on: sql, now: now) {
                [.credentialRevoked(device: device, user: nil, email: nil, issuer: "", name: "device key \(name)", at: now)]
            }
        }
        return sessions
    }

    /// Until when the key with this id works (its expiry, or `.distantFuture`), or nil when it is
    /// revoked, expired or gone: what a stream opened with it checks again (``OpenStreams``).
    package static func liveUntil(_ id: UUID, now: Date, on database: any Database) async throws -> Date? {
        guard let key = try await APIKey.find(id, on: database), key.revokedAt == nil else { return nil }
        let until = key.expiresAt ?? .distantFuture
        return until > now ? until : nil
    }

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
