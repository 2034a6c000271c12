import Fluent
import Foundation
import HandoverCore

/// A sign-in nonce handed to an app: only its SHA-256 is stored; single use, 10-minute life.
final class AppleNonce: Model, @unchecked Sendable {
    static let schema = "apple_nonces"

    @ID(key: .id) var id: UUID?
    @Field(key: "nonce_hash") var nonceHash: String
    @Field(key: "expires_at") var expiresAt: Date

    init() {}
}

/// A server-to-server notification already processed, by its `jti` (Apple retries, so
/// duplicates arrive).
final class AppleNotificationRecord: Model, @unchecked Sendable {
    static let schema = "apple_notifications"

    @ID(key: .id) var id: UUID?
    @Field(key: "jti") var jwtID: String
    @Field(key: "type") var type: String
    @Field(key: "subject") var subject: String
    @Field(key: "received_at") var receivedAt: Date

    init() {}
}

/// One of the access-token signing keys, its private half sealed with the at-rest key.
final class SessionSigningKeyRecord: Model, @unchecked Sendable {
    static let schema = "session_signing_keys"

    @ID(key: .id) var id: UUID?
    @Field(key: "kid") var keyID: String
    @Field(key: "sealed_private_key") var sealedPrivateKey: String
    @Field(key: "created_at") var createdAt: Date

    init() {}
}
