import DeviceSimulator
import Foundation
import HandoverProtocol

/// The two app backends `handover demo` plays, told of each hand-over by OpenID Connect
/// Back-Channel Logout: one that takes the logout token (answers 200 and keeps it), and one that
/// is down (nothing listens at its address), so its token is retried and then shown as failed.
struct DemoBackends {
    /// The app whose backend is up, and the one whose backend is down.
    static let upApp = "sim-conformant"
    static let downApp = "sim-flaky"
    /// A backend-only app: nothing on the phone; its backend (the live one) ends it.
    static let backendOnlyApp = "sim-rota"
    /// An app without ULC, logged out by an x-callback-url (iOS asks for a tap first).
    static let xCallbackApp = "sim-pager"
    static let path = "/oidc/backchannel-logout"

    let up: LoopbackServer
    let downURL: URL

    static func start() async throws -> DemoBackends {
        let up = try await LoopbackServer.start(routes: [path: .init(status: 200, contentType: "text/plain", body: "")])
        // A port that was free a moment ago and is closed now: connections to it are refused.
        let closed = try await LoopbackServer.start()
        let port = closed.port
        try await closed.shutdown()
        return DemoBackends(up: up, downURL: URL(string: "http://127.0.0.1:\(port)\(path)")!)
    }

    /// Each app with a backend, and the Back-Channel Logout URI it listens at.
    var uris: [String: URL] {
        [Self.upApp: liveURL, Self.downApp: downURL, Self.backendOnlyApp: liveURL]
    }

    var liveURL: URL { URL(string: up.origin + Self.path)! }

    /// The logout tokens the live backend received (the POSTs' `logout_token`), decoded.
    func receivedTokens() -> [(sid: String?, audience: String?, isBackChannelLogout: Bool)] {
        up.received.filter { $0.method == "POST" && $0.target == Self.path }.compactMap { request in
            guard let field = request.body.split(separator: "&").first(where: { $0.hasPrefix("logout_token=") }) else { return nil }
            let token = String(field.dropFirst("logout_token=".count)).removingPercentEncoding ?? ""
            guard let claims = UnverifiedClaims.of(token) else { return nil }
            return (claims.sessionID, claims.audience, claims.events.contains("http://schemas.openid.net/event/backchannel-logout"))
        }
    }

    /// The outcome each backend must get.
    static func expected(_ app: String) -> BackChannelLogoutState? {
        switch app {
        case upApp, backendOnlyApp: .delivered
        case downApp: .failed
        default: nil
        }
    }

    /// A backend side in words: `delivered after 1 attempt (HTTP 200)`.
    static func describe(_ backend: LogoutRunView.Item.BackendLogout) -> String {
        let state = backend.isFailing ? "failing" : backend.state.rawValue
        var text = "\(state) after \(backend.attempts) attempt\(backend.attempts == 1 ? "" : "s")"
        if let code = backend.lastStatusCode {
            text += " (HTTP \(code))"
        } else if let error = backend.lastError {
            text += " (\(error.contains("refused") ? "connection refused" : String(error.prefix(60))))"
        }
        return text
    }

    func shutdown() async {
        try? await up.shutdown()
    }
}
