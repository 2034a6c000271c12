import Foundation
import HandoverProtocol
import HandoverSchema

/// Ends API keys, and with them everything they opened: the dashboard sessions a key signed in
/// end in the revocation's transaction, and its streams, on every instance, when it is announced
/// (``CredentialRevocations``). A device's key is a key like any other: listed, revoked, and
/// replaced by a new one (``rekey(device:actor:now:on:)``) when a phone is lost or its key
/// leaked; each of those is a step of the device's history, with who acted. The statements are
/// ``KeyStore``'s; each revocation is one transaction.
package struct KeyRevocation: Sendable {
    package let revocations: CredentialRevocations

    package init(revocations: CredentialRevocations) {
        self.revocations = revocations
    }

    /// Revokes `key`; returns false when it was revoked already. A device's key is recorded in the
    /// device's history as revoked by `actor`.
    package func revoke(_ key: APIKey, actor: String, now: Date, on database: DatabaseHandle) async throws -> Bool {
        let sessions: [UUID]? = try await database.inTransaction { db in
            guard let sessions = try await key.revoke(at: now, inTransaction: db) else { return nil }
            if let device = key.deviceID { try await KeyStore(db).record(.keyRevoked, of: device, actor: actor, now: now) }
            return sessions
        }
        guard let sessions else { return false }
        await revocations.announce([.apiKey(try key.storedID)] + sessions.map(RevokedCredential.dashboardSession), on: database)
        return true
    }

    /// Revokes every live key of a device (a lost phone); returns the keys revoked, none when the
    /// device had no live key (then nothing is recorded).
    package func revokeKeys(ofDevice deviceID: UUID, actor: String, now: Date, on database: DatabaseHandle) async throws -> [APIKey] {
        let (revoked, sessions) = try await database.inTransaction { db in
            let ended = try await Self.revokeLive(ofDevice: deviceID, now: now, on: db)
            if !ended.0.isEmpty { try await KeyStore(db).record(.keyRevoked, of: deviceID, actor: actor, now: now) }
            return ended
        }
        await announce(revoked, sessions, on: database)
        return revoked
    }

    /// A device's new key (shown once): every live key it had is revoked in the same transaction,
    /// so the old one is refused from the commit on. A retired device is refused (409
    /// `device_retired`). Returns the new key, its row, and the keys
    /// it replaced.
    package func rekey(device: Device, actor: String, now: Date, on database: DatabaseHandle) async throws
        -> (key: String, row: APIKey, replaced: [APIKey]) {
        let deviceID = try device.storedID
        let (key, row) = APIKey.make(name: "device \(device.name)", scope: .device, deviceID: deviceID, now: now)
        let (revoked, sessions) = try await database.inTransaction { db in
            let store = KeyStore(db)
            // A retired device gets no key again (read under the row's lock: a write on SQLite).
            if try await store.lockIsRetired(deviceID) {
                throw DomainError(.conflict, code: DeviceStatus.Refusal.retired.rawValue,
                                  reason: "The device is retired: it left the fleet for good, and gets no new key.")
            }
            let ended = try await Self.revokeLive(ofDevice: deviceID, now: now, on: db)
            try await store.insert(row)
            try await store.record(.keyReplaced, of: deviceID, actor: actor, now: now)
            return ended
        }
        await announce(revoked, sessions, on: database)
        return (key, row, revoked)
    }

    /// Announces, after the commit, the end of keys revoked in a caller's transaction
    /// (``revokeLive(ofDevice:now:on:)``) and of the dashboard sessions they signed in: their
    /// streams end on every instance.
    package func announce(_ keys: [APIKey], _ sessions: [UUID], on database: DatabaseHandle) async {
        await revocations.announce(keys.compactMap(\.id).map(RevokedCredential.apiKey) + sessions.map(RevokedCredential.dashboardSession),
                                   on: database)
    }

    /// Revokes every live key of a device in the caller's transaction (nothing recorded); returns
    /// the keys and the dashboard sessions they ended, for ``announce(_:_:on:)`` after the commit.
    package static func revokeLive(ofDevice deviceID: UUID, now: Date, on db: DatabaseHandle) async throws -> ([APIKey], [UUID]) {
        let live = try await KeyStore(db).liveKeys(ofDevice: deviceID)
        var revoked: [APIKey] = [], sessions: [UUID] = []
        for key in live {
            guard let ended = try await key.revoke(at: now, inTransaction: db) else { continue }
            revoked.append(key)
            sessions += ended
        }
        return (revoked, sessions)
    }
}

extension APIKey {
    /// Marks the key revoked at `now` inside the caller's transaction, and ends the dashboard
    /// sessions it signed in (deleted with it); a device key's revocation is also CAEP
    /// credential-change for Shared Signals. Returns the sessions that ended, or nil when the key
    /// was revoked already (revoking is final). ``KeyRevocation`` wraps it and announces the end.
    package func revoke(at now: Date, inTransaction db: DatabaseHandle) async throws -> [UUID]? {
        try await KeyStore(db).revoke(self, at: now)
    }

    /// Until when the key with this id works (its expiry, or `.distantFuture`), or nil when it is
    /// revoked, expired or gone: what a stream opened with it checks again (``OpenStreams``).
    package static func liveUntil(_ id: UUID, now: Date, on database: DatabaseHandle) async throws -> Date? {
        guard let key = try await APIKey.stored(id, on: database), key.revokedAt == nil else { return nil }
        let until = key.expiresAt ?? .distantFuture
        return until > now ? until : nil
    }
}
