import Crypto
import Foundation
import LinkCallbacks

/// One of the server's access-token signing keys: a P-256 key with its `kid` and creation time.
///
/// The server makes a new key every rotation period and keeps older ones only as long as tokens
/// they signed can still be alive, so a leaked key stops mattering after one rotation plus one
/// access-token lifetime.
public struct SessionSigningKey: Sendable {
    /// The key id in the JWT header: 16 hex characters, random.
    public let keyID: String
    public let privateKey: P256.Signing.PrivateKey
    public let createdAt: Date

    public init(keyID: String, privateKey: P256.Signing.PrivateKey, createdAt: Date) {
        self.keyID = keyID
        self.privateKey = privateKey
        self.createdAt = createdAt
    }

    /// A new random key created at `now`.
    public static func generate(now: Date) -> SessionSigningKey {
        let kid = Hex.lowercase((0..<8).map { _ in UInt8.random(in: 0...255) })
        return SessionSigningKey(keyID: kid, privateKey: P256.Signing.PrivateKey(), createdAt: now)
    }
}
