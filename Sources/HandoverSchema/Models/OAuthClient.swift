import FluentKit
import Foundation

/// An OAuth client with credentials (RFC 7591): a backend that introspects and revokes tokens
/// and may receive Back-Channel Logout tokens. Its secret is stored only as a SHA-256 digest.
///
/// A client registered with `software_id` naming a registered app's bundle id *is* that app's
/// backend: its `client_id` is the bundle id, the `aud` of the app's tokens. Any other client is
/// a backend of the whole fleet, with a server-assigned `client_id`.
package final class OAuthClient: Model, @unchecked Sendable {
    package static let schema = "oauth_clients"

    @ID(key: .id) package var id: UUID?
    @Field(key: "client_id") package var clientID: String
    @Field(key: "secret_hash") package var secretHash: String
    @OptionalField(key: "client_name") package var clientName: String?
    /// The bundle id of the registered app this client is the backend of, when it is one.
    @OptionalField(key: "software_id") package var softwareID: String?
    /// For a client that is not an app: where its logout tokens go (an app's is in the registry).
    @OptionalField(key: "backchannel_logout_uri") package var backchannelLogoutURI: String?
    @Field(key: "backchannel_logout_session_required") package var backchannelLogoutSessionRequired: Bool
    @Field(key: "created_at") package var createdAt: Date

    package init() {}

    /// Whether the client may see and revoke tokens issued to `audience`: an app's backend only
    /// its app's, a fleet backend every one.
    package func mayHandle(audience: String?) -> Bool {
        softwareID == nil || audience == clientID
    }
}
