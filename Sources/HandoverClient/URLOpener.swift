import Foundation

/// Opens a URL on the app's behalf: the one effect a receiver has on the outside world.
///
/// On iOS, `UIApplicationURLOpener` opens it with `UIApplication.open(_:options:)`, without
/// `universalLinksOnly` (the initiator may be a web page). Tests and the device simulator inject
/// their own, which records what was opened.
public protocol URLOpener: Sendable {
    /// Opens `url`; returns whether the system accepted it.
    func open(_ url: URL) async -> Bool
}
