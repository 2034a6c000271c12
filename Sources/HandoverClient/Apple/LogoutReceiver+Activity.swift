#if canImport(UIKit)
import Foundation
import UIKit

extension LogoutReceiver {
    /// For `application(_:continue:restorationHandler:)` and SwiftUI's
    /// `.onContinueUserActivity(NSUserActivityTypeBrowsingWeb)`: handles the activity's
    /// universal link, if it is one. Returns whether the link was accepted.
    @discardableResult
    public func handle(userActivity: NSUserActivity) -> Bool {
        guard userActivity.activityType == NSUserActivityTypeBrowsingWeb, let url = userActivity.webpageURL else {
            return false
        }
        return handle(url)
    }

    /// For SwiftUI's `.onOpenURL { receiver.handleOpenURL($0) }`: handles the URL when it is a
    /// ULC and ignores anything else. Returns whether the link was accepted.
    @discardableResult
    public func handleOpenURL(_ url: URL) -> Bool {
        handle(url)
    }
}
#endif
