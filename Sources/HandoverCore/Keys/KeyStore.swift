import FluentKit
import Foundation
import HandoverProtocol
import HandoverSchema
import SQLKit

/// The keys area's statements: API keys stored, found, counted and revoked (with the dashboard
/// sessions they signed in and the steps of their device's history), the key read of every API
/// request (``LiveKeys``) and the batched write of when keys were last used (``KeyUses``).
/// ``APIKeyIssuer``, ``KeyRequest``, ``KeyRevocation``, ``KeyUses`` and ``LiveKeys`` decide; this
/// runs what they decided, in the caller's transaction.
package struct KeyStore: Sendable {
    package let database: DatabaseHandle
    package init(_ database: DatabaseHandle) { self.database = database }

    /// Whether the database speaks SQL (both drivers do).
    package var speaksSQL: Bool { database is any SQLDatabase }

    // MARK: Keys

    /// Writes a new key row.
    package func insert(_ key: APIKey) async throws {
        try await key.create(on: database)
    }

    /// Reads the key not revoked whose hash is `hash` (expired or not).
    package func unrevokedKey(hash: String) async throws -> APIKey? {
        try await APIKey.query(on: database)
            .filter(\.$keyHash == hash)
            .filter(\.$revokedAt == nil)
            .first()
    }

    /// Counts the admin keys, revoked or not: whether there is one.
    package func adminKeyExists() async throws -> Bool {
        try await APIKey.query(on: database).filter(\.$scope == APIKeyScope.admin.rawValue).count() > 0
    }

    /// Reads the live (not revoked) keys of a device.
    package func liveKeys(ofDevice deviceID: UUID) async throws -> [APIKey] {
        try await APIKey.query(on: database).filter(\.$deviceID == deviceID).filter(\.$revokedAt == nil).all()
    }

    /// Marks `key` revoked at `now` and deletes the dashboard sessions it signed in; a device
    /// key's revocation also writes its CAEP credential-change for Shared Signals. Returns the
    /// sessions deleted, or nil (and writes nothing) when the key was revoked already.
    package func revoke(_ key: APIKey, at now: Date) async throws -> [UUID]? {
        let db = database
        guard key.revokedAt == nil else { return nil }
        key.revokedAt = now
        try await key.update(on: db)
        let sessions = try await DashboardSession.query(on: db).filter(\.$apiKeyID == key.requireID()).all().compactMap(\.id)
        if !sessions.isEmpty { try await DashboardSession.query(on: db).filter(\.$id ~~ sessions).delete() }
        // Shared Signals: a device's key revoked is CAEP credential-change, in the same transaction.
        if let device = key.deviceID, let sql = db as? any SQLDatabase {
            let name = key.name
            try await SharedSignalsOutbox.enqueue(on: sql, now: now) {
                [.credentialRevoked(device: device, user: nil, email: nil, issuer: "", name: "device key \(name)", at: now)]
            }
        }
        return sessions
    }

    /// Takes the device's row (a write on SQLite) and reads whether the device is retired; false
    /// on a database that does not speak SQL (``DeviceLifeCycle/lock(_:on:)``).
    package func lockIsRetired(_ deviceID: UUID) async throws -> Bool {
        if let sql = database as? any SQLDatabase, try await DeviceLifeCycle.lock([deviceID], on: sql)[deviceID] == .retired { return true }
        return false
    }

    /// Writes a step of the device's history that leaves its status as it is (nothing for an
    /// unknown device, or a database that does not speak SQL).
    package func record(_ event: DeviceHistoryEvent, of deviceID: UUID, actor: String, now: Date) async throws {
        let db = database
        guard let sql = db as? any SQLDatabase, let device = try await Device.find(deviceID, on: db) else { return }
        try await DeviceHistoryLog.write([DeviceHistoryLog.Step(device: deviceID, event: event, from: device.status, to: device.status,
                                                                actor: actor)], on: sql, now: now)
    }

    // MARK: Uses and the key read

    /// Writes when each key of `uses` was last used: one statement per `chunk` keys.
    package func writeLastUses(_ uses: [(key: UUID, value: Date)], chunk: Int) async throws {
        guard let sql = database as? any SQLDatabase else { return }
        for start in stride(from: 0, to: uses.count, by: chunk) {
            let part = uses[start..<min(start + chunk, uses.count)]
            let cases = part.map { "WHEN \(bind: $0.key) THEN \(bind: $0.value)" as SQLQueryString }.joined(separator: " ")
            try await sql.raw("UPDATE api_keys SET last_used_at = CASE id \(cases) END WHERE id IN (\(binds: part.map(\.key)))").run()
        }
    }

    /// Reads the keys not revoked among `hashes`, by hash, in one statement.
    package func liveKeys(_ hashes: Set<String>) async throws -> [String: LiveKeys.Key] {
        guard let sql = database as? any SQLDatabase else {
            throw DomainError(.storage, code: "no_sql", reason: "The database does not speak SQL.")
        }
        let rows = try await sql.raw("""
            SELECT key_hash, id, name, scope, key_prefix, device_id, expires_at, site FROM api_keys \
            WHERE key_hash IN (\(SQLList(hashes.map { SQLBind($0) }))) AND revoked_at IS NULL
            """).all()
        return try Dictionary(rows.map { (try $0.decode(column: "key_hash", as: String.self), try $0.decode(model: LiveKeys.Key.self)) }) { first, _ in first }
    }
}

// MARK: - The issuer's public entry points

/// ``APIKeyIssuer``'s public functions name FluentKit's `Database` (a public signature cannot
/// name the core's package-wide ``DatabaseHandle``), so they sit beside the statements they run.
extension APIKeyIssuer {
    /// Creates and stores a key; returns the key text, shown once.
    public static func create(name: String, scope: APIKeyScope, deviceID: UUID? = nil, expiresAt: Date? = nil, site: SiteName? = nil,
                              on database: Database, now: Date = Date()) async throws -> String {
        let (key, row) = make(name: name, scope: scope, deviceID: deviceID, now: now, expiresAt: expiresAt)
        row.site = site?.text
        try await KeyStore(database).insert(row)
        return key
    }

    /// Whether the database holds an admin key (revoked or not): a first start has none.
    public static func adminKeyExists(on database: Database) async throws -> Bool {
        try await KeyStore(database).adminKeyExists()
    }
}
