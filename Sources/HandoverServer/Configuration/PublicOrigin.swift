import Foundation
import NIOConcurrencyHelpers

/// The public origin used in links and association files, known only once the port is bound
/// when port 0 was asked for: routes hold this, and read ``url`` when they answer.
final class PublicOrigin: Sendable {
    private let value: NIOLockedValueBox<URL>

    init(_ url: URL) { value = NIOLockedValueBox(url) }

    var url: URL { value.withLockedValue { $0 } }

    /// Whether cookies must be Secure: the public URL is https.
    var isSecure: Bool { url.scheme == "https" }

    func set(_ url: URL) { value.withLockedValue { $0 = url } }
}
