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

    /// What a server without `--public-url` says, at start and on its home page: its callback
    /// links are plain http on loopback, which real phones refuse; nil for an https origin.
    static func plainHTTPNotice(for url: URL) -> String? {
        guard url.scheme != "https" else { return nil }
        return "Callback links are plain http at \(url.absoluteString), which real phones refuse (universal links need https). "
            + "Behind your TLS proxy, pass --public-url https://handover.example.com (HANDOVER_PUBLIC_URL)."
    }
}
