import FluentKit
import Foundation

/// A sign-in sent to the provider and not yet back: the `state` it carries (hashed), the
/// `nonce` the ID token must hold and the PKCE verifier. Used once; good for ten minutes.
package final class AdminSignInAttempt: Model, @unchecked Sendable {
    package static let schema = "admin_sign_in_attempts"

    @ID(key: .id) package var id: UUID?
    @Field(key: "state_hash") package var stateHash: String
    @Field(key: "nonce") package var nonce: String
    @Field(key: "code_verifier") package var codeVerifier: String
    @Field(key: "created_at") package var createdAt: Date
    @Field(key: "expires_at") package var expiresAt: Date

    package init() {}
}
