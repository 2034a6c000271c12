import FluentKit
import Foundation
import HandoverProtocol
import HandoverSchema
import SQLKit

/// Ends API keys, and with them everything they opened: the dashboard sessions a key signed in
/// end in the revocation's transaction, and its streams, on every instance, when it is announced
/// (``CredentialRevocations``). A device's key is a key like any other: listed, revoked, and
/// replaced by a new one (``rekey(device:actor:now:on:)``) when a phone is lost or its key
/// leaked; each of those is a step of the device's history, with who acted.
package struct KeyRevocation: Sendable {
    package let revocations: CredentialRevocations

    package init(revocations: CredentialRevocations) {
        self.revocations = revocations
    }

    /// Revokes `key`; returns false when it was revoked already. A device's key is recorded in the
    /// device's history as revoked by `actor`.
    package func revoke(_ key: APIKey, actor: String, now: Date, on database: any Database) async throws -> Bool {
        let sessions: [UUID]? = try await database.transaction { db in
            guard let sessions = try await key.revoke(at: now, inTransaction: db) else { return nil }
            if let device = key.deviceID { try await Self.record(.keyRevoked, of: device, actor: actor, on: db, now: now) }
            return sessions
        }
        guard let sessions else { return false }
        await revocations.announce([.apiKey(try key.requireID())] + sessions.map(RevokedCredential.dashboardSession), on: database)
        return true
    }

    /// Revokes every live key of a device (a lost phone); returns the keys revoked, none when the
    /// device had no live key (then nothing is recorded).
    package func revokeKeys(ofDevice deviceID: UUID, actor: String, now: Date, on database: any Database) async throws -> [APIKey] {
        let (revoked, sessions) = try await database.transaction { db in
            let ended = try await Self.revokeLive(ofDevice: deviceID, now: now, on: db)
            if !ended.0.isEmpty { try await Self.record(.keyRevoked, of: deviceID, actor: actor, on: db, now: now) }
            return ended
        }
        await announce(revoked, sessions, on: database)
        return revoked
    }

    /// A device's new key (shown once): every live key it had is revoked in the same transaction,
    /// so the old one is refused from the commit on. A retired device is refused (409
    /// `device_retired`). Returns the new key, its row, and the keys
    /// it replaced.
    package func rekey(device: Device, actor: String, now: Date, on database: any Database) async throws
        -> (key: String, row: APIKey, replaced: [APIKey]) {
        let deviceID = try device.requireID()
        let (key, row) = APIKey.make(name: "device \(device.name)", scope: .device, deviceID: deviceID, now: now)
        let (revoked, sessions) = try await database.transaction { db in
            // A retired device gets no key again (read under the row's lock: a write on SQLite).
            if let sql = db as? any SQLDatabase, try await DeviceLifeCycle.lock([deviceID], on: sql)[deviceID] == .retired {
                throw DomainError(.conflict, code: DeviceStatus.Refusal.retired.rawValue,
                                  reason: "The device is retired: it left the fleet for good, and gets no new key.")
            }
            let ended = try await Self.revokeLive(ofDevice: deviceID, now: now, on: db)
            try await row.create(on: db)
            try await Self.record(.keyReplaced, of: deviceID, actor: actor, on: db, now: now)
            return ended
        }
        await announce(revoked, sessions, on: database)
        return (key, row, revoked)
    }

    /// Announces, after the commit, the end of keys revoked in a caller's transaction
    /// (``revokeLive(ofDevice:now:on:)``) and of the dashboard sessions they signed in: their
    /// streams end on every instance.
    package func announce(_ keys: [APIKey], _ sessions: [UUID], on database: any Database) async {
        await revocations.announce(keys.compactMap(\.id).map(RevokedCredential.apiKey) + sessions.map(RevokedCredential.dashboardSession),
                                   on: database)
    }

    /// Revokes every live key of a device in the caller's transaction (nothing recorded); returns
    /// the keys and the dashboard sessions they ended, for ``announce(_:_:on:)`` after the commit.
    package static func revokeLive(ofDevice deviceID: UUID, now: Date, on db: any Database) async throws -> ([APIKey], [UUID]) {
        let live = try await APIKey.query(on: db).filter(\.$deviceID == deviceID).filter(\.$revokedAt == nil).all()
        var revoked: [APIKey] = [], sessions: [UUID] = []
        for key in live {
            guard let ended = try await key.revoke(at: now, inTransaction: db) else { continue }
            revoked.append(key)
            sessions += ended
        }
        return (revoked, sessions)
    }

    /// A step of the device's history that leaves its status as it is.
    private static func record(_ event: DeviceHistoryEvent, of deviceID: UUID, actor: String, on db: any Database, now: Date) async throws {
        guard let sql = db as? any SQLDatabase, let device = try await Device.find(deviceID, on: db) else { return }
        try await DeviceHistoryLog.write([DeviceHistoryLog.Step(device: deviceID, event: event, from: device.status, to: device.status,
                                                                actor: actor)], on: sql, now: now)
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
}
