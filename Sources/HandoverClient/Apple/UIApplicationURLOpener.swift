#if canImport(UIKit)
import UIKit

/// Opens callbacks with `UIApplication.open(_:options:)`, deliberately without
/// `universalLinksOnly`: seed 000 says the initiator may be a web app, whose callback must
/// then open in the browser.
public struct UIApplicationURLOpener: URLOpener {
    public init() {}

    @MainActor
    private func openOnMain(_ url: URL) async -> Bool {
        await UIApplication.shared.open(url, options: [:])
    }

    public func open(_ url: URL) async -> Bool {
        await openOnMain(url)
    }
}
#endif
