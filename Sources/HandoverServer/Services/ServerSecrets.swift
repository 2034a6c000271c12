import Crypto
import Fluent
import Foundation
import LinkCallbacks

/// Secrets made once, on first start, and kept in the database so every instance shares them.
enum ServerSecrets {
    static let nonceKeyName = "callback_nonce_key"

    /// The callback-nonce key, created if this is the first start.
    static func nonceKey(on database: Database) async throws -> SymmetricKey {
        if let existing = try await ServerSetting.find(nonceKeyName, on: database), let data = try? Base64URL.decode(existing.value) {
            return SymmetricKey(data: data)
        }
        let fresh = SymmetricKey(size: .bits256).withUnsafeBytes { Base64URL.encode(Array($0)) }
        do {
            try await ServerSetting(key: nonceKeyName, value: fresh).create(on: database)
        } catch {
            // Another instance created it first: use theirs.
        }
        guard let stored = try await ServerSetting.find(nonceKeyName, on: database) else {
            throw APIError(.internalServerError, code: "internal_error", reason: "The server secret could not be stored.")
        }
        return SymmetricKey(data: try Base64URL.decode(stored.value))
    }
}
