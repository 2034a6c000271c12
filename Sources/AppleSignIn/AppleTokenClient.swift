import AsyncHTTPClient
import Foundation
import NIOCore

/// Calls Apple's token endpoints: exchanges an authorization code, validates a refresh token and
/// revokes tokens. Every call has a deadline (``timeout``) and every failure is an
/// ``AppleTokenError``.
///
/// ```swift
/// let client = AppleTokenClient(clientSecret: secret, httpClient: .shared)
/// let tokens = try await client.exchangeCode(authorizationCode)
/// ```
public struct AppleTokenClient: Sendable {
    /// Produces `client_secret`; its ``ClientSecret/clientID`` is sent as `client_id`.
    public let clientSecret: ClientSecret
    /// Apple's origin.
    public let baseURL: URL
    /// The deadline of each call.
    public let timeout: Duration
    private let httpClient: HTTPClient

    /// - Parameters:
    ///   - clientSecret: The secret signer for your client id.
    ///   - httpClient: The client to call Apple with; the caller owns it.
    ///   - baseURL: Apple's origin (`https://appleid.apple.com`), or a test server's.
    ///   - timeout: The deadline of each call.
    public init(
        clientSecret: ClientSecret, httpClient: HTTPClient, baseURL: URL = AppleID.defaultBaseURL,
        timeout: Duration = .seconds(10)
    ) {
        self.clientSecret = clientSecret
        self.httpClient = httpClient
        self.baseURL = baseURL
        self.timeout = timeout
    }

    /// Exchanges an authorization code for tokens (`grant_type=authorization_code`).
    ///
    /// - Parameters:
    ///   - code: The app's `authorizationCode` (single use, valid 5 minutes).
    ///   - redirectURI: Only if the authorization request had one (web flows); native apps pass `nil`.
    public func exchangeCode(_ code: String, redirectURI: String? = nil) async throws(AppleTokenError) -> AppleTokenResponse {
        var fields = [("grant_type", "authorization_code"), ("code", code)]
        if let redirectURI { fields.append(("redirect_uri", redirectURI)) }
        let (status, body) = try await post("/auth/token", fields)
        return try decode(AppleTokenResponse.self, status: status, body: body)
    }

    /// Validates a refresh token (`grant_type=refresh_token`). Success means the user's grant still
    /// stands; ``AppleTokenError/isInvalidGrant`` means it was revoked. Apple asks that you do this
    /// at most once a day per user.
    public func validateRefreshToken(_ refreshToken: String) async throws(AppleTokenError) -> AppleRefreshResponse {
        let (status, body) = try await post("/auth/token", [("grant_type", "refresh_token"), ("refresh_token", refreshToken)])
        return try decode(AppleRefreshResponse.self, status: status, body: body)
    }

    /// Revokes a token (`POST /auth/revoke`). Apple answers 200 even for unknown tokens. Call it
    /// when the user deletes their account.
    public func revoke(_ token: String, hint: AppleTokenTypeHint = .refreshToken) async throws(AppleTokenError) {
        let (status, body) = try await post("/auth/revoke", [("token", token), ("token_type_hint", hint.rawValue)])
        guard status == 200 else { throw .unexpectedResponse(status: status, body: body) }
    }

    private func post(_ path: String, _ fields: [(String, String)]) async throws(AppleTokenError) -> (Int, String) {
        let secret: String
        do { secret = try await clientSecret.current() } catch { throw .clientSecret(error) }
        let form = FormEncoding.encode([("client_id", clientSecret.clientID), ("client_secret", secret)] + fields)
        var request = HTTPClientRequest(url: baseURL.appendingEndpoint(path).absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        request.body = .bytes(ByteBuffer(string: form))
        do {
            let response = try await httpClient.execute(request, timeout: TimeAmount(timeout))
            let body = try await response.body.collect(upTo: 1 << 20)
            let text = String(buffer: body)
            let status = Int(response.status.code)
            if status >= 500 { throw AppleTokenError.unavailable("Apple answered \(status)") }
            if status == 429 {
                throw AppleTokenError.throttled(retryAfterSeconds: response.headers.first(name: "Retry-After").flatMap { Int($0) })
            }
            if (400..<500).contains(status) {
                if let apple = try? JSONDecoder().decode(AppleErrorBody.self, from: Data(text.utf8)) {
                    throw AppleTokenError.rejected(AppleOAuthErrorCode(rawValue: apple.error), description: apple.error_description, status: status)
                }
                throw AppleTokenError.unexpectedResponse(status: status, body: text)
            }
            return (status, text)
        } catch let error as AppleTokenError {
            throw error
        } catch {
            throw .unavailable(Self.describe(error))
        }
    }

    private func decode<T: Decodable>(_ type: T.Type, status: Int, body: String) throws(AppleTokenError) -> T {
        guard status == 200, let value = try? JSONDecoder().decode(T.self, from: Data(body.utf8)) else {
            throw .unexpectedResponse(status: status, body: body)
        }
        return value
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout: return "timed out"
            default: return "\(error)"
            }
        }
        return "\(error)"
    }
}

/// Apple's error JSON.
private struct AppleErrorBody: Decodable {
    var error: String
    var error_description: String?
}
