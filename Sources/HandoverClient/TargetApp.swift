import Foundation

/// An app the launcher logs out: a name for reports and its ULC logout action.
public struct TargetApp: Sendable, Codable, Hashable {
    /// A short, URL-safe name (`mail`, `com.example.chart`), used in callback paths and reports.
    public var id: String
    /// The app's logout action, an https universal link such as `https://mail.example.com/logout`.
    public var logoutAction: URL

    public init(id: String, logoutAction: URL) {
        self.id = id
        self.logoutAction = logoutAction
    }
}
