import Foundation

/// Where the server may send what it owes others (webhook events, back-channel logout tokens):
/// the address policy checked before every delivery, and which schemes a registered URL may use.
package struct OutboundTargets: Sendable {
    /// Which addresses deliveries may reach (``WebhookTargetPolicy``).
    package var policy: WebhookTargetPolicy
    /// Plain http to any host, not only to loopback (`--webhook-loopback`, for tests).
    package var allowsHTTPEverywhere: Bool

    /// Whether a URL with `scheme` may point at `host`: https, or http to loopback (or anywhere
    /// when ``allowsHTTPEverywhere``).
    package func allows(scheme: String, host: String) -> Bool {
        scheme == "https" || (scheme == "http" && (allowsHTTPEverywhere || WebhookTargetPolicy.isLoopback(host)))
    }

    package init(policy: WebhookTargetPolicy, allowsHTTPEverywhere: Bool) {
        self.policy = policy
        self.allowsHTTPEverywhere = allowsHTTPEverywhere
    }
}
