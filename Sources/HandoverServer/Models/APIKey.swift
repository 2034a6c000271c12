import Fluent
import Foundation
import HandoverCore

/// A stored API key: only its SHA-256 hash is kept; the key itself is shown once at creation.
final class APIKey: Model, @unchecked Sendable {
    static let schema = "api_keys"

    @ID(key: .id) var id: UUID?
    @Field(key: "name") var name: String
    @Field(key: "scope") var scope: String
    @Field(key: "key_hash") var keyHash: String
    @Field(key: "key_prefix") var keyPrefix: String
    @OptionalField(key: "device_id") var deviceID: UUID?
    @Field(key: "created_at") var createdAt: Date
    @OptionalField(key: "revoked_at") var revokedAt: Date?

    init() {}

    init(name: String, scope: APIKeyScope, keyHash: String, keyPrefix: String, deviceID: UUID?, createdAt: Date) {
        self.name = name
        self.scope = scope.rawValue
        self.keyHash = keyHash
        self.keyPrefix = keyPrefix
        self.deviceID = deviceID
        self.createdAt = createdAt
    }
}

/// What a key may do.
public enum APIKeyScope: String, Codable, Sendable, CaseIterable {
    /// Everything: the registry, every device's runs, webhooks.
    case admin
    /// One device: start its own logout runs, read them, report callbacks.
    case device
}
