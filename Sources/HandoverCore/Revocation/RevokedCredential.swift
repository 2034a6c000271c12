import Foundation

/// A credential whose end must reach everything opened with it: the dashboard sessions it signed
/// in, the event streams it opened, on every instance (``CredentialRevocations``).
///
/// A person's sessions, a provider's logout token, a key's dashboard sessions and a device's keys
/// all come down to these two: the caller names the sessions and keys that ended.
public enum RevokedCredential: Hashable, Sendable {
    /// An API key (a person's, a service's or a device's), revoked, or replaced by a device's new key.
    case apiKey(UUID)
    /// A dashboard session, ended by sign-out, by the provider, or with its person or key.
    case dashboardSession(UUID)

    /// The text sent between instances (`NOTIFY handover_credential_revoked, 'key:…'`).
    public var payload: String {
        switch self {
        case .apiKey(let id): "key:" + id.uuidString.lowercased()
        case .dashboardSession(let id): "dashboard:" + id.uuidString.lowercased()
        }
    }

    /// Reads ``payload``; nil for any other text.
    public init?(payload: String) {
        guard let colon = payload.firstIndex(of: ":"), let id = UUID(uuidString: String(payload[payload.index(after: colon)...])) else {
            return nil
        }
        switch payload[..<colon] {
        case "key": self = .apiKey(id)
        case "dashboard": self = .dashboardSession(id)
        default: return nil
        }
    }
}
