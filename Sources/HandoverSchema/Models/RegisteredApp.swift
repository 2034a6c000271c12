import FluentKit
import Foundation
import HandoverProtocol

/// An app in the registry: what it is called, who it is to iOS, and how to log it out.
package final class RegisteredApp: Model, @unchecked Sendable {
    package static let schema = "apps"

    @ID(key: .id) package var id: UUID?
    @Field(key: "name") package var name: String
    /// `launcher` (opens ULCs and receives their callbacks) or `target` (is logged out).
    @Field(key: "role") package var role: AppRole
    @Field(key: "app_ids") package var appIDs: [String]
    @OptionalField(key: "logout_action") package var logoutAction: String?
    /// How the app is logged out; nil (apps registered before methods existed) is ULC.
    @OptionalField(key: "logout_method") package var logoutMethod: LogoutMethod?
    @Field(key: "paths") package var paths: [String]
    @Field(key: "allowed_callback_hosts") package var allowedCallbackHosts: [String]
    @Field(key: "deadline_seconds") package var deadlineSeconds: Int
    @Field(key: "max_reissues") package var maxReissues: Int
    @OptionalField(key: "android_package") package var androidPackage: String?
    @Field(key: "android_fingerprints") package var androidFingerprints: [String]
    @Field(key: "created_at") package var createdAt: Date
    /// Where the app's backend takes OpenID Connect Back-Channel Logout tokens, when it does.
    @OptionalField(key: "backchannel_logout_uri") package var backchannelLogoutURI: String?
    /// Whether its backend needs `sid` in them (`backchannel_logout_session_required`).
    @OptionalField(key: "backchannel_logout_session_required") package var backchannelLogoutSessionRequired: Bool?

    package init() {}
}
