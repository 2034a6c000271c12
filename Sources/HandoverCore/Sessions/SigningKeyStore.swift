import Crypto
import Foundation
import HandoverSchema
import SessionTokens

/// Keeps the access-token key ring in step with the database: every instance signs with the
/// same key and verifies with every key whose tokens may still be alive. A key is replaced every
/// rotation interval and dropped one access-token lifetime after it stopped signing.
///
/// A new key is made one publication lead (``SessionSettings/keyPublicationLead``) before it
/// signs, so it is in the JWKS before any token needs it: a backend that caches the JWKS for at
/// most that long (its `Cache-Control: max-age`) always holds the key of a token it is shown.
/// The keys' rows are read and written through ``SessionStore``.
package struct SigningKeyStore: Sendable {
    package let ring: SessionKeyRing
    package let sealer: SecretSealer
    package let settings: SessionSettings

    /// Loads the live keys, makes a new one when the newest is due, picks the signing key, and
    /// drops retired ones (from the ring and the database).
    package func synchronize(on database: DatabaseHandle, now: Date) async throws {
        let store = SessionStore(database)
        let lead = settings.keyPublicationLead
        let oldestLive = now.addingTimeInterval(-(settings.keyRotationInterval + settings.accessTokenLifetime + 60))
        var records = try await store.signingKeys(createdSince: oldestLive)
        if records.map(\.createdAt).max().map({ now.timeIntervalSince($0) >= settings.keyRotationInterval - lead }) ?? true {
            let key = SessionSigningKey.generate(now: now)
            let record = SessionSigningKeyRecord()
            record.keyID = key.keyID
            record.sealedPrivateKey = try sealer.seal(key.privateKey.rawRepresentation)
            record.createdAt = now
            try await store.insert(record)
            records.append(record)
        }
        var live = Set<String>()
        for record in records {
            live.insert(record.keyID)
            if ring.keyIDs.contains(record.keyID) { continue }
            let raw = try sealer.open(record.sealedPrivateKey)
            try await ring.install(SessionSigningKey(keyID: record.keyID, privateKey: try P256.Signing.PrivateKey(rawRepresentation: raw),
                                                     createdAt: record.createdAt))
        }
        // The newest key that has been published for a whole lead signs; on a first start, the only one.
        let byAge = records.sorted { ($0.createdAt, $0.keyID) > ($1.createdAt, $1.keyID) }
        if let signing = byAge.first(where: { now.timeIntervalSince($0.createdAt) >= lead }) ?? byAge.last {
            ring.sign(with: signing.keyID)
        }
        await ring.retain(only: live)
        try await store.deleteSigningKeys(createdBefore: oldestLive)
    }
}
