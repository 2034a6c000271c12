import Foundation
import HandoverProtocol
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sign-in by a link sent by email, from the app's side.
///
/// The person types an address; ``requestLink(for:deviceID:clientID:)`` asks the server to mail a one-time link
/// (`https://<server>/auth/email/verify?token=…`, claimed by the app as a universal link). When the
/// app opens that link, ``redeem(link:clientID:deviceID:deviceSSO:)`` trades it for a
/// `SessionGrant`.
///
/// On a shared phone, pass the fleet device's id: the device's next logout run then ends this
/// session and tells the app's backend (OpenID Connect Back-Channel Logout). With `deviceSSO`,
/// keep the grant's device secret and ID token with ``SharedSession/keep(deviceSecret:idToken:)``
/// so the organisation's other apps sign in without a step.
///
/// ```swift
/// let signIn = EmailLinkSignIn(server: URL(string: "https://handover.example.com")!)
/// try await signIn.requestLink(for: "nurse@hospital.example", clientID: "com.example.pharmacy")
/// // … later, in the app's universal-link handler:
/// let grant = try await signIn.redeem(link: url, clientID: "com.example.pharmacy", deviceID: fleetDeviceID, deviceSSO: true)
/// ```
public struct EmailLinkSignIn: Sendable {
    public let server: URL
    private let session: URLSession

    public init(server: URL, session: URLSession = .shared) {
        self.server = server
        self.session = session
    }

    /// Asks the server to mail a sign-in link to `email`.
    ///
    /// - Parameters:
    ///   - email: the address the person typed.
    ///   - deviceID: the shared phone's fleet device id: the session the link starts ends with
    ///     the device's hand-over, even when the person opens the link in a browser.
    ///   - clientID: this app's bundle id as registered. The link then works only for an app of
    ///     this app's Apple team: the link opens the first installed app that claims it, which may
    ///     be another team's (Native SSO's same-team rule). Give it.
    public func requestLink(for email: String, deviceID: UUID? = nil, clientID: String? = nil) async throws(FleetServerError) {
        var body = ["email": email]
        body["deviceID"] = deviceID?.uuidString.lowercased()
        body["clientID"] = clientID
        _ = try await post("auth/email/start", body)
    }

    /// The one-time token a sign-in link carries, or nil when `link` is not one.
    public static func token(in link: URL) -> String? {
        guard link.path.hasSuffix("/auth/email/verify") else { return nil }
        return URLComponents(url: link, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "token" }?.value
    }

    /// Trades the link the app opened for a session.
    ///
    /// - Parameters:
    ///   - link: the sign-in link, as the app received it.
    ///   - clientID: the app's bundle id as registered (required with `deviceSSO`).
    ///   - deviceID: the shared phone's fleet device id, so its hand-over ends this session.
    ///   - deviceSSO: ask for a device secret and an ID token for sibling apps (Native SSO).
    public func redeem(link: URL, clientID: String? = nil, deviceID: UUID? = nil, deviceSSO: Bool = false) async throws(FleetServerError) -> SessionGrant {
        guard let token = Self.token(in: link) else {
            throw .rejected(status: 0, error: "invalid_link", reason: "\(link.absoluteString.prefix(100)) is not a sign-in link (…/auth/email/verify?token=…)")
        }
        var body: [String: String] = ["token": token]
        body["clientID"] = clientID
        body["deviceID"] = deviceID?.uuidString.lowercased()
        if deviceSSO { body["scope"] = "openid device_sso" }
        let data = try await post("auth/email/redeem", body)
        do {
            return try JSONDecoder().decode(SessionGrant.self, from: data)
        } catch {
            throw .unreadable(url: server.appendingPathComponent("auth/email/redeem").absoluteString, detail: "\(error)")
        }
    }

    private func post(_ path: String, _ fields: [String: String]) async throws(FleetServerError) -> Data {
        let url = server.appendingPathComponent(path)
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let data: Data
        let response: URLResponse
        do {
            request.httpBody = try JSONEncoder().encode(fields)
            (data, response) = try await session.data(for: request)
        } catch {
            throw .unreachable(url: url.absoluteString, detail: error.localizedDescription)
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else { throw .refusal(status: status, body: data) }
        return data
    }
}
