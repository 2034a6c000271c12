import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Single sign-on between an organisation's apps on one device (OpenID Connect Native SSO).
///
/// The first app signs in with scope `device_sso` and calls ``keep(deviceSecret:idToken:)``. A
/// sibling app (same team, registered on the server) calls ``signInSibling()`` and gets its own
/// tokens with no user step. A device logout (the shared phone's logout run, or
/// `POST /auth/logout?scope=device`) revokes the device secret, and with it every sibling session.
///
/// ```swift
/// let shared = SharedSession(server: URL(string: "https://handover.example.com")!,
///                            clientID: "com.example.pharmacy",
///                            store: KeychainSecretStore(accessGroup: "ABCDE12345.com.example.shared"))
/// if let tokens = try await shared.signInSibling() { … }   // nil: nobody is signed in on this device
/// ```
public struct SharedSession: Sendable {
    /// What the first app keeps for its siblings.
    public struct DeviceSession: Codable, Sendable, Equatable {
        public var deviceSecret: String
        public var idToken: String
    }

    /// A sibling app's own tokens.
    public struct Tokens: Decodable, Sendable, Equatable {
        public var accessToken: String
        public var refreshToken: String
        public var expiresIn: Int
        public var idToken: String?

        public init(accessToken: String, refreshToken: String, expiresIn: Int, idToken: String?) {
            self.accessToken = accessToken
            self.refreshToken = refreshToken
            self.expiresIn = expiresIn
            self.idToken = idToken
        }

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token", refreshToken = "refresh_token", expiresIn = "expires_in", idToken = "id_token"
        }
    }

    /// The actor-token type sent; servers accept `urn:openid:params:token-type:device-secret` and
    /// the older `urn:x-oath:params:oauth:token-type:device-secret`.
    public static let deviceSecretTokenType = "urn:openid:params:token-type:device-secret"
    static let storeKey = "device-session"

    public let server: URL
    public let clientID: String
    public let store: any SecretStore
    private let session: URLSession
    private let actorTokenType: String

    public init(server: URL, clientID: String, store: any SecretStore, session: URLSession = .shared,
                actorTokenType: String = SharedSession.deviceSecretTokenType) {
        self.server = server
        self.clientID = clientID
        self.store = store
        self.session = session
        self.actorTokenType = actorTokenType
    }

    /// Keeps the device secret and ID token from a `device_sso` sign-in for the siblings.
    public func keep(deviceSecret: String, idToken: String) throws {
        try store.write(Self.storeKey, JSONEncoder().encode(DeviceSession(deviceSecret: deviceSecret, idToken: idToken)))
    }

    /// The kept device session, if any app on this device signed in.
    public func current() throws -> DeviceSession? {
        guard let data = try store.read(Self.storeKey) else { return nil }
        return try JSONDecoder().decode(DeviceSession.self, from: data)
    }

    /// Forgets the device session (after a sign-out).
    public func forget() throws { try store.delete(Self.storeKey) }

    /// Exchanges the kept device session for this app's own tokens; `nil` when no app on this
    /// device is signed in. When the server says the device session is over (`invalid_grant`),
    /// the kept secret is forgotten and ``SharedSessionError/signedOut(_:)`` is thrown.
    public func signInSibling() async throws -> Tokens? {
        guard let kept = try current() else { return nil }
        var request = URLRequest(url: server.appendingPathComponent("oauth/token"))
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.httpBody = Data(Self.form([
            ("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"),
            ("client_id", clientID),
            ("subject_token", kept.idToken),
            ("subject_token_type", "urn:ietf:params:oauth:token-type:id_token"),
            ("actor_token", kept.deviceSecret),
            ("actor_token_type", actorTokenType),
        ]).utf8)
        let (data, response): (Data, URLResponse)
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw SharedSessionError.unreachable(error.localizedDescription)
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else {
            struct Problem: Decodable { var error: String; var error_description: String? }
            let problem = try? JSONDecoder().decode(Problem.self, from: data)
            if problem?.error == "invalid_grant" {
                try? forget()
                throw SharedSessionError.signedOut(problem?.error_description ?? "the device session ended")
            }
            throw SharedSessionError.refused(status: status, error: problem?.error ?? "http_\(status)",
                                             description: problem?.error_description ?? String(decoding: data.prefix(300), as: UTF8.self))
        }
        do {
            return try JSONDecoder().decode(Tokens.self, from: data)
        } catch {
            throw SharedSessionError.unreadable("\(error)")
        }
    }

    /// `application/x-www-form-urlencoded`, every reserved character percent-encoded.
    static func form(_ fields: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return fields.map { name, value in
            (name.addingPercentEncoding(withAllowedCharacters: allowed) ?? "") + "=" + (value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
        }.joined(separator: "&")
    }
}

/// Why a sibling sign-in failed.
public enum SharedSessionError: Error, Equatable, CustomStringConvertible {
    /// The device session is over (device logout, revoked secret): sign in again.
    case signedOut(String)
    /// The server refused for another reason (an unregistered client id, a bad request).
    case refused(status: Int, error: String, description: String)
    case unreachable(String)
    case unreadable(String)

    public var description: String {
        switch self {
        case .signedOut(let reason): "the device session is over: \(reason)"
        case .refused(let status, let error, let description): "the server refused (\(status) \(error)): \(description)"
        case .unreachable(let detail): "the server could not be reached: \(detail)"
        case .unreadable(let detail): "the server's answer could not be read: \(detail)"
        }
    }
}
