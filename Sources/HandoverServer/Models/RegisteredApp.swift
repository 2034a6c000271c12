import Fluent
import Foundation

/// An app in the registry: what it is called, who it is to iOS, and how to log it out.
final class RegisteredApp: Model, @unchecked Sendable {
    static let schema = "apps"

    @ID(key: .id) var id: UUID?
    @Field(key: "name") var name: String
    /// `launcher` (opens ULCs and receives their callbacks) or `target` (is logged out).
    @Field(key: "role") var role: String
    @Field(key: "app_ids") var appIDs: [String]
    @OptionalField(key: "logout_action") var logoutAction: String?
    @Field(key: "paths") var paths: [String]
    @Field(key: "allowed_callback_hosts") var allowedCallbackHosts: [String]
    @Field(key: "deadline_seconds") var deadlineSeconds: Int
    @Field(key: "max_reissues") var maxReissues: Int
    @OptionalField(key: "android_package") var androidPackage: String?
    @Field(key: "android_fingerprints") var androidFingerprints: [String]
    @Field(key: "created_at") var createdAt: Date

    init() {}
}
