import Foundation
import HandoverCore
import HandoverSchema
import JWTKit
import SessionTokens
import Vapor

/// `POST /oauth/introspect`: OAuth 2.0 Token Introspection (RFC 7662), for backends that need a
/// revocation to hold at once. It reads the session's row on every call, so a token revoked a
/// moment ago answers `{"active": false}` on every instance.
///
/// The caller authenticates as a registered client (``ClientAuthentication``). An app's backend
/// sees only its app's tokens; any other token answers inactive, as RFC 7662 section 4 allows.
struct TokenIntrospectionRoutes: RouteCollection {
    static let path = "/oauth/introspect"

    let throttle: Throttle
    let clock: ServerClock
    let sessions: SessionAuthority
    let databases: ServerDatabases

    /// The request (RFC 7662 section 2.1), with the client's credentials when posted in the form.
    struct Form: Content {
        var token: String?
        var token_type_hint: String?
        var client_id: String?
        var client_secret: String?
    }

    /// The answer (section 2.2); only `active` when the token is not.
    struct Answer: Content, Equatable {
        var active: Bool
        var token_type: String?
        var client_id: String?
        var username: String?
        var sub: String?
        var aud: String?
        var iss: String?
        var exp: Int?
        var iat: Int?
        var jti: String?
        var sid: String?

        static let inactive = Answer(active: false)
    }

    func boot(routes: RoutesBuilder) throws {
        routes.post("oauth", "introspect", use: introspect)
    }

    @Sendable func introspect(request: Request) async throws -> Response {
        do {
            let form = try Self.form(request)
            let client = try await ClientAuthentication.client(request, formClientID: form.client_id, formSecret: form.client_secret, throttle: throttle,
                                                               databases: databases)
            guard let token = form.token, !token.isEmpty else { throw OAuthError.invalidRequest("token is required.") }
            let answer = try await answer(for: token, client: client, in: databases)
            let response = Response(status: .ok)
            try response.content.encode(answer, using: JSONEncoder.api)
            response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
            return response
        } catch let error as OAuthError {
            return try error.response()
        }
    }

    /// Reads the form body both endpoints take.
    static func form(_ request: Request) throws -> Form {
        guard request.headers.contentType == .urlEncodedForm else {
            throw OAuthError.invalidRequest("The body must be application/x-www-form-urlencoded.")
        }
        guard let form = try? request.content.decode(Form.self, as: .urlEncodedForm) else { throw OAuthError.invalidRequest("The form could not be read.") }
        return form
    }

    private func answer(for token: String, client: OAuthClient, in databases: ServerDatabases) async throws -> Answer {
        let db = databases.primary
        let now = clock.now()
        if token.hasPrefix("hrt_") {
            guard let (record, session) = try await sessions.refreshTokenSession(token, on: db),
                  record.usedAt == nil, session.revokedAt == nil, session.expiresAt > now else { return .inactive }
            let audience = session.clientID ?? sessions.ring.issuer
            guard client.mayHandle(audience: audience) else { return .inactive }
            return Answer(active: true, token_type: "refresh_token", client_id: session.clientID, sub: session.userID.uuidString,
                          aud: audience, iss: sessions.ring.issuer, exp: Int(session.expiresAt.timeIntervalSince1970),
                          iat: Int(record.createdAt.timeIntervalSince1970), sid: session.id?.uuidString)
        }
        guard let claims = try? await sessions.verified(token, on: db), claims.tokenUse == "access",
              let sessionID = UUID(uuidString: claims.sessionID),
              let session = try await UserSession.stored(sessionID, on: db), session.revokedAt == nil,
              client.mayHandle(audience: claims.audience) else { return .inactive }
        return Answer(active: true, token_type: "Bearer", client_id: session.clientID, username: claims.email, sub: claims.userID,
                      aud: claims.audience, iss: claims.issuer.value, exp: Int(claims.expiresAt.value.timeIntervalSince1970),
                      iat: Int(claims.issuedAt.value.timeIntervalSince1970), jti: claims.tokenID, sid: claims.sessionID)
    }
}
