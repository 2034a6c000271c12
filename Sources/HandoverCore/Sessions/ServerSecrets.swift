import Crypto
import Foundation
import HandoverSchema
import LinkCallbacks
import SessionTokens

/// Secrets made once, on first start, and kept in the database so every instance shares them.
///
/// Every secret the server keeps in its database (the callback-nonce key here, webhook signing
/// secrets, Apple refresh tokens, session signing keys) is sealed with the at-rest encryption
/// key (``EncryptionKeyFile``), so a copy of the database alone reveals none of them. The
/// statements are ``SessionStore``'s.
package enum ServerSecrets {
    package static let nonceKeyName = "callback_nonce_key"
    /// Marks a sealed value in columns that held clear text before secrets were sealed.
    package static let sealedPrefix = "sealed:v1:"

    /// The callback-nonce key, created if this is the first start. A key stored in clear text by
    /// an older version is sealed in place.
    package static func nonceKey(on database: DatabaseHandle, sealer: SecretSealer) async throws -> SymmetricKey {
        let store = SessionStore(database)
        if let existing = try await store.setting(nonceKeyName) {
            let text = try open(existing.value, sealer: sealer)
            if !existing.value.hasPrefix(sealedPrefix) {
                existing.value = try seal(text, sealer: sealer)
                try await store.save(existing)
            }
            return SymmetricKey(data: try Base64URL.decode(text))
        }
        let fresh = SymmetricKey(size: .bits256).withUnsafeBytes { Base64URL.encode(Array($0)) }
        do {
            try await store.insert(ServerSetting(key: nonceKeyName, value: try seal(fresh, sealer: sealer)))
        } catch {
            // Another instance created it first: use theirs.
        }
        guard let stored = try await store.setting(nonceKeyName) else {
            throw DomainError(.storage, code: "internal_error", reason: "The server secret could not be stored.")
        }
        return SymmetricKey(data: try Base64URL.decode(try open(stored.value, sealer: sealer)))
    }

    /// The stored form of a secret: sealed, and marked as such.
    package static func seal(_ secret: String, sealer: SecretSealer) throws -> String {
        sealedPrefix + (try sealer.seal(secret))
    }

    /// A stored secret in clear: opened when sealed, as it is when an older version stored it
    /// in clear text.
    static func open(_ stored: String, sealer: SecretSealer) throws -> String {
        guard stored.hasPrefix(sealedPrefix) else { return stored }
        return try sealer.openString(String(stored.dropFirst(sealedPrefix.count)))
    }

    /// Seals the webhook secrets an older version stored in clear text; returns how many.
    @discardableResult
    package static func sealStoredWebhookSecrets(on database: DatabaseHandle, sealer: SecretSealer) async throws -> Int {
        let store = SessionStore(database)
        var sealed = 0
        for hook in try await store.webhooks() where !hook.secret.hasPrefix(sealedPrefix) {
            hook.secret = try seal(hook.secret, sealer: sealer)
            try await store.save(hook)
            sealed += 1
        }
        return sealed
    }
}
