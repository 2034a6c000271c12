import Foundation
import HandoverProtocol

/// An app the launcher logs out: a name for reports and its logout action.
///
/// The action is either a ULC, an `https` universal link such as
/// `https://mail.example.com/logout`, or an x-callback-url on the app's custom scheme such as
/// `pager://x-callback-url/logout` for an app without ULC. iOS asks the person before it opens
/// a custom scheme ("Open in Pager?"), so an x-callback app costs a tap; see
/// ``LogoutInitiator`` for where its answers come back.
public struct TargetApp: Sendable, Codable, Hashable {
    /// A short, URL-safe name (`mail`, `com.example.chart`), used in callback paths and reports.
    public var id: String
    /// The app's logout action: an https universal link (ULC) or a custom-scheme
    /// `scheme://x-callback-url/<action>` (x-callback).
    public var logoutAction: URL

    public init(id: String, logoutAction: URL) {
        self.id = id
        self.logoutAction = logoutAction
    }

    /// How the app is logged out, read from its action: `LogoutMethod.xCallback` for a
    /// custom scheme whose host is `x-callback-url`, `LogoutMethod.ulc` otherwise.
    public var logoutMethod: LogoutMethod {
        let scheme = logoutAction.scheme?.lowercased()
        return scheme != "https" && scheme != "http" && logoutAction.host?.lowercased() == "x-callback-url" ? .xCallback : .ulc
    }
}
