import FluentKit
import Foundation

/// The tenant's allowlist for out-of-band operations' x-callback targets: hosts (exact or
/// `*.suffix`) and custom schemes. One row per tenant; a server is one tenant (`default`).
package final class CallbackAllowlistRecord: Model, @unchecked Sendable {
    package static let schema = "oob_callback_allowlists"
    package static let defaultTenant = "default"

    @ID(custom: "id", generatedBy: .user) package var id: String?
    /// JSON array of host entries.
    @Field(key: "hosts") package var hosts: String
    /// JSON array of lower-case custom schemes.
    @Field(key: "schemes") package var schemes: String
    @Field(key: "updated_at") package var updatedAt: Date

    package init() {}
}
