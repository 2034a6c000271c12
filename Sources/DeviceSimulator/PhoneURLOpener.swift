import Foundation
import HandoverClient

/// How an app on the simulated phone opens a URL: through the phone's router, like
/// `UIApplication.open(_:options:)`.
struct PhoneURLOpener: URLOpener {
    let phone: SimulatedPhone
    let app: String

    func open(_ url: URL) async -> Bool {
        switch await phone.open(url, from: app) {
        case .app, .browser: true
        case .refused: false
        }
    }
}
