import Foundation
import HandoverCore
import HandoverProtocol
import HandoverSchema
import JWTKit
import SessionTokens
import Vapor

/// `POST /oauth/token`: OpenID Connect Native SSO for Mobile Apps. A sibling app of the same
/// team trades the first app's ID token and device secret for its own session, with no user
/// step (RFC 8693 token exchange). Form-encoded in; errors in the RFC 6749 form.
///
/// Also the client credentials grant (RFC 6749 §4.4): a registered client (RFC 7591) gets the
/// bearer token the Shared Signals endpoints take (``ClientCredentialsTokens``).
struct OAuthTokenRoutes: RouteCollection {
    static let tokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
    static let clientCredentials = "client_credentials"
    static let idTokenType = "urn:ietf:params:oauth:token-type:id_token"
    static let accessTokenType = "urn:ietf:params:oauth:token-type:access_token"
    /// Both actor-token types in use: the draft's current one and the earlier one.
    static let deviceSecretTypes: Set<String> = ["urn:openid:params:token-type:device-secret",
                                                 "urn:x-oath:params:oauth:token-type:device-secret"]

    let sessions: SessionAuthority
    let throttle: Throttle
    let clock: ServerClock
    let databases: ServerDatabases

    struct ExchangeForm: Content {
        var grant_type: String?
        var client_id: String?
        var client_secret: String?
        var subject_token: String?
        var subject_token_type: String?
        var actor_token: String?
        var actor_token_type: String?
        var scope: String?
        var audience: String?
    }

    struct TokenResponse: Content {
        var access_token: String
        var issued_token_type = OAuthTokenRoutes.accessTokenType
        var token_type = "Bearer"
        var expires_in: Int
        var refresh_token: String
        var id_token: String?
    }

    func boot(routes: RoutesBuilder) throws {
        routes.post("oauth", "token", use: token)
    }

    /// RFC 6749 §4.4.3: a client credentials grant's answer, with no refresh token.
    struct ClientTokenResponse: Content {
        var access_token: String
        var token_type = "Bearer"
        var expires_in = Int(ClientCredentialsTokens.lifetime)
    }

    @Sendable func token(request: Request) async throws -> Response {
        do {
            let response = Response(status: .ok)
            if let form = try? request.content.decode(ExchangeForm.self, as: .urlEncodedForm), form.grant_type == Self.clientCredentials,
               request.headers.contentType == .urlEncodedForm {
                let client = try await ClientAuthentication.client(request, formClientID: form.client_id, formSecret: form.client_secret, throttle: throttle,
                                                               databases: databases)
                let token = try await ClientCredentialsTokens.issue(client: client.clientID, on: try databases.sql(), now: clock.now())
                try response.content.encode(ClientTokenResponse(access_token: token))
            } else {
                try response.content.encode(try await exchange(request))
            }
            response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
            return response
        } catch let error as OAuthError {
            return try error.response()
        }
    }

    private func exchange(_ request: Request) async throws -> TokenResponse {
        guard request.headers.contentType == .urlEncodedForm else {
            throw OAuthError.invalidRequest("The body must be application/x-www-form-urlencoded.")
        }
        guard let form = try? request.content.decode(ExchangeForm.self, as: .urlEncodedForm) else {
            throw OAuthError.invalidRequest("The form could not be read.")
        }
        guard let grantType = form.grant_type else { throw OAuthError.invalidRequest("grant_type is required.") }
        guard grantType == Self.tokenExchange else {
            throw OAuthError(status: .badRequest, error: "unsupported_grant_type",
                             description: "Only \(Self.tokenExchange) (Native SSO) and client_credentials (RFC 6749 §4.4) are served here.")
        }
        guard let clientID = form.client_id, !clientID.isEmpty else { throw OAuthError.invalidRequest("client_id is required.") }
        guard let subjectToken = form.subject_token, !subjectToken.isEmpty else { throw OAuthError.invalidRequest("subject_token is required.") }
        guard form.subject_token_type == Self.idTokenType else {
            throw OAuthError.invalidRequest("subject_token_type must be \(Self.idTokenType).")
        }
        guard let actorToken = form.actor_token, !actorToken.isEmpty else { throw OAuthError.invalidRequest("actor_token (the device secret) is required.") }
        guard let actorType = form.actor_token_type, Self.deviceSecretTypes.contains(actorType) else {
            throw OAuthError.invalidRequest("actor_token_type must be one of \(Self.deviceSecretTypes.sorted().joined(separator: ", ")).")
        }
        guard let siblingTeam = try await RegisteredClients.team(of: clientID, on: databases.primary) else {
            throw OAuthError.invalidClient("client_id \(clientID.prefix(80)) is not an app in this server's registry.")
        }
        let claims: IDTokenClaims
        do {
            claims = try await sessions.ring.verifyIgnoringExpiry(idToken: subjectToken)
        } catch {
            throw OAuthError.invalidGrant("The ID token was refused: \(error).")
        }
        guard let secret = try await sessions.deviceSecret(actorToken, on: databases.primary),
              let secretID = secret.id else {
            throw OAuthError.invalidGrant("The device secret is unknown.")
        }
        guard secret.revokedAt == nil else { throw OAuthError.invalidGrant("The device secret was revoked (the device was signed out).") }
        guard claims.deviceSecretHash == IDTokenClaims.deviceSecretHash(actorToken) else {
            throw OAuthError.invalidGrant("ds_hash in the ID token does not match the device secret.")
        }
        guard claims.sessionID == secretID.uuidString, claims.subject.value == secret.userID.uuidString else {
            throw OAuthError.invalidGrant("The ID token's sid does not name this device secret's session.")
        }
        guard try await RegisteredClients.team(of: claims.audience, on: databases.primary) == siblingTeam else {
            throw OAuthError.invalidGrant("\(clientID.prefix(80)) is not from the same team as the app that signed in.")
        }
        guard let user = try await User.stored(secret.userID, on: databases.primary) else { throw OAuthError.invalidGrant("The user no longer exists.") }
        let grant = try await sessions.startSession(for: user, clientID: clientID, derivedFrom: secret, checkOut: .nativeSSO, on: databases.primary)
        return TokenResponse(access_token: grant.accessToken, expires_in: grant.expiresIn, refresh_token: grant.refreshToken,
                             id_token: grant.idToken)
    }
}
