/// An OAuth `error` code from Apple's token endpoints. Apple documents `invalid_request`,
/// `invalid_client`, `invalid_grant`, `unauthorized_client`, `unsupported_grant_type` and
/// `invalid_scope`; any other string is kept as it came.
public struct AppleOAuthErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let invalidRequest = Self(rawValue: "invalid_request")
    public static let invalidClient = Self(rawValue: "invalid_client")
    /// The code or refresh token is expired, already used, revoked, or was issued to another client.
    public static let invalidGrant = Self(rawValue: "invalid_grant")
    public static let unauthorizedClient = Self(rawValue: "unauthorized_client")
    public static let unsupportedGrantType = Self(rawValue: "unsupported_grant_type")
    public static let invalidScope = Self(rawValue: "invalid_scope")

    public var description: String { rawValue }
}

/// Why a call to Apple's token or revoke endpoint failed.
///
/// The distinction that matters to a server: ``isInvalidGrant`` means the user's grant is gone
/// (sign them out); ``isTransient`` means Apple could not be asked (keep the session, try later).
public enum AppleTokenError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Apple answered with its error JSON `{"error", "error_description"}` (a 4xx other than 429).
    case rejected(AppleOAuthErrorCode, description: String?, status: Int)
    /// Apple answered 429: too many validations of this token (Apple asks for at most one a day).
    /// Not a verdict on the grant.
    case throttled(retryAfterSeconds: Int?)
    /// Apple could not be asked or could not answer: a timeout, a connection error or a 5xx.
    case unavailable(String)
    /// Apple answered something this client cannot read (for example a 200 without the fields).
    case unexpectedResponse(status: Int, body: String)
    /// The client secret could not be produced.
    case clientSecret(ClientSecretError)

    /// Whether Apple said `invalid_grant`: the code was used or expired, or the refresh token was
    /// revoked. The user must sign in with Apple again.
    public var isInvalidGrant: Bool {
        if case .rejected(let code, _, _) = self { return code == .invalidGrant }
        return false
    }

    /// Whether retrying later may succeed (``unavailable(_:)`` or ``throttled(retryAfterSeconds:)``).
    public var isTransient: Bool {
        switch self {
        case .unavailable, .throttled: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .rejected(let code, let description, let status):
            "Apple rejected the request (\(status) \(code)\(description.map { ": \($0)" } ?? ""))"
        case .throttled(let retryAfter): "Apple throttled the request\(retryAfter.map { " (retry after \($0) s)" } ?? "")"
        case .unavailable(let reason): "Apple is unavailable: \(reason)"
        case .unexpectedResponse(let status, let body): "unexpected response \(status): \(body.prefix(200))"
        case .clientSecret(let error): "client secret: \(error)"
        }
    }
}
