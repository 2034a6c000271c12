import Vapor

/// An OAuth 2.0 error answer (RFC 6749 section 5.2, used as-is by RFC 7009, RFC 7662 and, with its
/// own codes, RFC 7591): `{"error": code, "error_description": sentence}`, never cached.
struct OAuthError: Error, Sendable {
    var status: HTTPResponseStatus
    var error: String
    var description: String
    /// For a 429: the seconds after which to try again, sent as `Retry-After`.
    var retryAfter: Int? = nil

    static func invalidRequest(_ text: String) -> OAuthError { OAuthError(status: .badRequest, error: "invalid_request", description: text) }
    static func invalidGrant(_ text: String) -> OAuthError { OAuthError(status: .badRequest, error: "invalid_grant", description: text) }
    /// Client authentication failed: 401 with a `WWW-Authenticate: Basic` challenge.
    static func invalidClient(_ text: String) -> OAuthError { OAuthError(status: .unauthorized, error: "invalid_client", description: text) }
    /// RFC 7591 section 3.2.2: a registration's metadata is not acceptable.
    static func invalidClientMetadata(_ text: String) -> OAuthError {
        OAuthError(status: .badRequest, error: "invalid_client_metadata", description: text)
    }

    /// The answer, with `Cache-Control: no-store` (and `Retry-After` when it has one).
    func response() throws -> Response {
        let response = Response(status: status)
        try response.content.encode(["error": error, "error_description": description])
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        if status == .unauthorized { response.headers.replaceOrAdd(name: .wwwAuthenticate, value: "Basic realm=\"handover\"") }
        if let retryAfter {
            // As the JSON API's 429: the client pays a new connection for its next try.
            response.headers.replaceOrAdd(name: .retryAfter, value: String(retryAfter))
            response.headers.replaceOrAdd(name: .connection, value: "close")
        }
        return response
    }
}
