import Fluent
import Foundation
import HandoverCore

/// The tenant's allowlist for out-of-band operations' x-callback targets: hosts (exact or
/// `*.suffix`) and custom schemes. One row per tenant; a server is one tenant (`default`).
final class CallbackAllowlistRecord: Model, @unchecked Sendable {
    static let schema = "oob_callback_allowlists"
    static let defaultTenant = "default"

    @ID(custom: "id", generatedBy: .user) var id: String?
    /// JSON array of host entries.
    @Field(key: "hosts") var hosts: String
    /// JSON array of lower-case custom schemes.
    @Field(key: "schemes") var schemes: String
    @Field(key: "updated_at") var updatedAt: Date

    init() {}
}
