import FluentKit
import SQLKit
import Foundation

/// A stored API key: only its SHA-256 hash is kept; the key itself is shown once at creation.
package final class APIKey: Model, @unchecked Sendable {
    package static let schema = "api_keys"

    @ID(key: .id) package var id: UUID?
    @Field(key: "name") package var name: String
    @Field(key: "scope") package var scope: String
    @Field(key: "key_hash") package var keyHash: String
    @Field(key: "key_prefix") package var keyPrefix: String
    @OptionalField(key: "device_id") package var deviceID: UUID?
    @Field(key: "created_at") package var createdAt: Date
    @OptionalField(key: "revoked_at") package var revokedAt: Date?
    /// When it stops working, for a key made with an expiry.
    @OptionalField(key: "expires_at") package var expiresAt: Date?
    /// When it was last used, to the minute (noted in memory, written in batches: ``KeyUses``).
    @OptionalField(key: "last_used_at") package var lastUsedAt: Date?
    /// The one site a person's or service's key is for: such a key opens only the dashboard,
    /// with its role at that site (a ward's wall screen); nil for every site.
    @OptionalField(key: "site") package var site: String?

    package init() {}

    package init(name: String, scope: APIKeyScope, keyHash: String, keyPrefix: String, deviceID: UUID?, createdAt: Date) {
        self.name = name
        self.scope = scope.rawValue
        self.keyHash = keyHash
        self.keyPrefix = keyPrefix
        self.deviceID = deviceID
        self.createdAt = createdAt
    }
}

/// What a key may do.
///
/// A named credential for a person or a service carries a role (`viewer`, `operator`, `admin`,
/// as the dashboard's people have); a device key acts for its own device only.
public enum APIKeyScope: String, Codable, Sendable, CaseIterable {
    /// Everything: the registry, webhooks, every device's runs.
    case admin
    /// Acts on devices: starts runs, puts devices back in service, registers devices; reads everything.
    case `operator`
    /// Reads: devices, runs, history, apps, webhooks.
    case viewer
    /// One device: start its own logout runs, read them, report callbacks.
    case device

}
