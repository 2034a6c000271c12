import Foundation
import HandoverCore

/// Where the server may send what it owes others (webhook events, back-channel logout tokens):
/// the address policy checked before every delivery, and which schemes a registered URL may use.
struct OutboundTargets: Sendable {
    /// Which addresses deliveries may reach (``WebhookTargetPolicy``).
    var policy: WebhookTargetPolicy
    /// Plain http to any host, not only to loopback (`--webhook-loopback`, for tests).
    var allowsHTTPEverywhere: Bool

    /// Whether a URL with `scheme` may point at `host`: https, or http to loopback (or anywhere
    /// when ``allowsHTTPEverywhere``).
    func allows(scheme: String, host: String) -> Bool {
        scheme == "https" || (scheme == "http" && (allowsHTTPEverywhere || WebhookTargetPolicy.isLoopback(host)))
    }
}
