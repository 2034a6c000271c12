import HandoverCore
import SessionTokens
import Vapor

/// The signed-in user of a request, from a valid access token.
struct SessionPrincipal: Authenticatable {
    var claims: AccessTokenClaims

    var userID: UUID? { UUID(uuidString: claims.userID) }
    var sessionID: UUID? { UUID(uuidString: claims.sessionID) }
}

/// Requires `Authorization: Bearer <accessToken>`: answers 401 with the reason otherwise.
struct RequireSession: AsyncMiddleware {
    let authority: SessionAuthority
    let databases: ServerDatabases

    func respond(to request: Request, chainingTo next: AsyncResponder) async throws -> Response {
        guard let bearer = request.headers.bearerAuthorization else {
            throw APIError(.unauthorized, code: "unauthorized",
                           reason: "Send the access token from POST /auth/apple or /auth/refresh as 'Authorization: Bearer <accessToken>'.")
        }
        let claims = try await authority.authenticate(bearer.token, on: databases.primary)
        request.auth.login(SessionPrincipal(claims: claims))
        return try await next.respond(to: request)
    }
}

extension Request {
    /// The signed-in user; routes behind ``RequireSession`` always have one.
    var session: SessionPrincipal {
        get throws {
            guard let principal = auth.get(SessionPrincipal.self) else {
                throw APIError(.unauthorized, code: "unauthorized", reason: "Send a valid access token.")
            }
            return principal
        }
    }
}
