import Foundation
import HandoverCore
import HandoverSchema
import SessionTokens
import Vapor

/// `POST /oauth/revoke`: OAuth 2.0 Token Revocation (RFC 7009) for refresh and access tokens.
///
/// Revoking either ends the token's whole session (its refresh-token family and every access
/// token it issued, section 2.1 allows both), which also sends its Back-Channel Logout tokens.
/// An unknown, expired or already revoked token answers 200 as well (section 2.2). An app's
/// backend may revoke only its app's tokens (400 `unauthorized_client` otherwise).
struct TokenRevocationRoutes: RouteCollection {
    static let path = "/oauth/revoke"

    let throttle: Throttle
    let sessions: SessionAuthority
    let databases: ServerDatabases

    func boot(routes: RoutesBuilder) throws {
        routes.post("oauth", "revoke", use: revoke)
    }

    @Sendable func revoke(request: Request) async throws -> Response {
        do {
            let form = try TokenIntrospectionRoutes.form(request)
            let client = try await ClientAuthentication.client(request, formClientID: form.client_id, formSecret: form.client_secret, throttle: throttle,
                                                               databases: databases)
            guard let token = form.token, !token.isEmpty else { throw OAuthError.invalidRequest("token is required.") }
            if let (sessionID, audience) = try await session(of: token, in: databases) {
                guard client.mayHandle(audience: audience) else {
                    throw OAuthError(status: .badRequest, error: "unauthorized_client",
                                     description: "This token was not issued to \(client.clientID); an app's backend revokes only its app's tokens.")
                }
                try await sessions.revoke(sessions: [sessionID], reason: "revoked_by_client", on: databases.primary)
            }
            let response = Response(status: .ok)
            response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
            return response
        } catch let error as OAuthError {
            return try error.response()
        }
    }

    /// The session a token belongs to and its audience, or nil for a token that is not ours or
    /// no longer verifies (expired access tokens end with their session anyway).
    private func session(of token: String, in databases: ServerDatabases) async throws -> (UUID, String?)? {
        let db = databases.primary
        if token.hasPrefix("hrt_") {
            guard let (record, session) = try await sessions.refreshTokenSession(token, on: db) else { return nil }
            return (record.sessionID, session.clientID ?? sessions.ring.issuer)
        }
        guard let claims = try? await sessions.verified(token, on: db), let id = UUID(uuidString: claims.sessionID) else { return nil }
        return (id, claims.audience)
    }
}
