import FluentKit
import Foundation

/// A sign-in nonce handed to an app: only its SHA-256 is stored; single use, 10-minute life.
package final class AppleNonce: Model, @unchecked Sendable {
    package static let schema = "apple_nonces"

    @ID(key: .id) package var id: UUID?
    @Field(key: "nonce_hash") package var nonceHash: String
    @Field(key: "expires_at") package var expiresAt: Date

    package init() {}
}

/// A server-to-server notification already processed, by its `jti` (Apple retries, so
/// duplicates arrive).
package final class AppleNotificationRecord: Model, @unchecked Sendable {
    package static let schema = "apple_notifications"

    @ID(key: .id) package var id: UUID?
    @Field(key: "jti") package var jwtID: String
    @Field(key: "type") package var type: String
    @Field(key: "subject") package var subject: String
    @Field(key: "received_at") package var receivedAt: Date

    package init() {}
}

/// One of the access-token signing keys, its private half sealed with the at-rest key.
package final class SessionSigningKeyRecord: Model, @unchecked Sendable {
    package static let schema = "session_signing_keys"

    @ID(key: .id) package var id: UUID?
    @Field(key: "kid") package var keyID: String
    @Field(key: "sealed_private_key") package var sealedPrivateKey: String
    @Field(key: "created_at") package var createdAt: Date

    package init() {}
}
