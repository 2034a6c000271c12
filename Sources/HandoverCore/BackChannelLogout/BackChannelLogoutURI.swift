import Foundation

/// A `backchannel_logout_uri` (Back-Channel Logout 1.0 section 2.2): an absolute https URL,
/// which may have a port, path and query but no fragment; http only to loopback (or any host
/// where the server allows loopback webhooks, as in tests). Its host must pass the same target
/// policy as webhooks.
package enum BackChannelLogoutURI {
    /// What is wrong with `text`, said for people, or nil when it is acceptable.
    package static func problem(with text: String, targets: OutboundTargets) -> String? {
        guard !text.containsControlCharacter, text.utf8.count <= 2048 else {
            return "give an https URL of at most 2048 characters, with no control characters"
        }
        guard let parts = URLComponents(string: text), let scheme = parts.scheme?.lowercased(), let host = parts.host, !host.isEmpty else {
            return "'\(text.prefix(100))' is not an absolute URL; give one such as https://api.example.com/oidc/backchannel-logout"
        }
        guard targets.allows(scheme: scheme, host: host) else {
            return "give an https URL such as https://api.example.com/oidc/backchannel-logout (http only on loopback)"
        }
        guard parts.fragment == nil else { return "a back-channel logout URI must not have a fragment (#…); Back-Channel Logout 1.0 section 2.2" }
        if let refusal = targets.policy.checkLiteral(host) { return refusal.advice(for: "backend") }
        return nil
    }
}
