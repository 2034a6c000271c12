import Foundation
import HandoverCore
import HandoverSchema
import Vapor

/// Authenticates an OAuth client at the introspection and revocation endpoints (RFC 6749
/// section 2.3.1): `client_secret_basic` (HTTP Basic with the form-urlencoded id and secret) or
/// `client_secret_post` (`client_id` and `client_secret` in the form). Secrets are compared by
/// their SHA-256 digest in constant time; wrong ones count against the caller's address
/// (``RateLimits/Policy/wrongClientSecret``) once they were checked: past the limit a wrong one
/// answers 429 `slow_down` with `Retry-After`, and the right one is served whatever its address
/// sent before. §2.3.1 asks an endpoint taking a client password to be protected against brute
/// force: a 256-bit secret cannot be reached by guessing, and wrong ones are slowed.
enum ClientAuthentication {
    /// The methods accepted, as discovery names them.
    static let methods = ["client_secret_basic", "client_secret_post"]

    /// The client the request authenticates as, or `invalid_client`.
    static func client(_ request: Request, formClientID: String?, formSecret: String?, throttle: Throttle,
                       databases: ServerDatabases) async throws -> OAuthClient {
        let id: String, secret: String
        if let basic = request.headers.basicAuthorization {
            guard formSecret == nil else {
                throw OAuthError.invalidRequest("Use one client authentication method: HTTP Basic or client_secret in the form, not both.")
            }
            // RFC 6749 section 2.3.1: both parts are form-urlencoded before Basic encoding.
            id = Self.formDecoded(basic.username)
            secret = Self.formDecoded(basic.password)
        } else if let formClientID, let formSecret {
            id = formClientID
            secret = formSecret
        } else {
            throw OAuthError.invalidClient("Authenticate the client: HTTP Basic (client_secret_basic) or client_id and client_secret in the form (client_secret_post). Register one at \(ClientRegistrationRoutes.path).")
        }
        // No stored id has a control character, and PostgreSQL refuses NUL in text: such an id
        // is unknown without asking the database.
        guard id.count <= 255, !id.containsControlCharacter, let client = try await OAuthClient.find(clientID: id, on: databases.primary),
              CallbackNonce.constantTimeEqual(client.secretHash, BearerSecret.digest(secret)) else {
            if let wait = throttle.attempt(.wrongClientSecret, request) {
                throw OAuthError(status: .tooManyRequests, error: "slow_down",
                                 description: "Too many wrong client secrets from this address; try again in \(wait) s.", retryAfter: wait)
            }
            throw OAuthError.invalidClient("The client id or secret is wrong.")
        }
        return client
    }

    static func formDecoded(_ text: String) -> String {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? text
    }
}
