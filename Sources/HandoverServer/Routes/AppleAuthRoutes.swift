import AppleSignIn
import Foundation
import HandoverCore
import HandoverProtocol
import HandoverSchema
import NIOFoundationCompat
import SessionTokens
import Vapor

/// Sign in with Apple and the server's own sessions:
///
/// - `POST /auth/apple/nonce`: a single-use nonce (10 minutes) for the app's Apple request;
/// - `POST /auth/apple`: identity token + authorization code + nonce → a session;
/// - `POST /auth/refresh`: rotates the refresh token;
/// - `POST /auth/logout`: ends the session of the access token sent;
/// - `POST /auth/apple/notifications`: Apple's server-to-server events;
/// - `GET /api/v1/me` and `DELETE /api/v1/me` (the account, its Apple grant revoked).
struct AppleAuthRoutes: RouteCollection {
    static let nonceLifetime: TimeInterval = 600

    /// Sign in with Apple, when configured.
    let appleSignIn: AppleSignInService?
    let throttle: Throttle
    let clock: ServerClock
    let sessions: SessionAuthority
    let databases: ServerDatabases

    func boot(routes: RoutesBuilder) throws {
        let auth = routes.grouped("auth")
        auth.post("apple", "nonce", use: nonce)
        auth.post("apple", use: signIn)
        auth.post("refresh", use: refresh)
        auth.post("apple", "notifications", use: notification)
        auth.grouped(RequireSession(authority: sessions, databases: databases)).post("logout", use: logout)
        let me = routes.grouped("api", "v1", "me").grouped(RequireSession(authority: sessions, databases: databases))
        me.get(use: showMe)
        me.delete(use: deleteMe)
    }

    private func apple() throws -> AppleSignInService {
        guard let apple = appleSignIn else {
            throw APIError(.notFound, code: "not_configured",
                           reason: "Sign in with Apple is not configured on this server: set HANDOVER_APPLE_CLIENT_IDS, HANDOVER_APPLE_TEAM_ID, HANDOVER_APPLE_KEY_ID and HANDOVER_APPLE_PRIVATE_KEY_FILE.")
        }
        return apple
    }

    @Sendable func nonce(request: Request) async throws -> Response {
        // Nothing is stored for a server without Sign in with Apple, nor past the rate limit.
        _ = try apple()
        try throttle.check(.appleNonce, request)
        let nonce = BearerSecret.random()
        try await AppleAccounts.storeNonce(nonce, expiresAt: clock.now().addingTimeInterval(Self.nonceLifetime), on: databases.primary)
        let response = Response(status: .ok)
        try response.content.encode(NonceOutput(nonce: nonce, expiresIn: Int(Self.nonceLifetime)))
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        return response
    }

    @Sendable func signIn(request: Request) async throws -> Response {
        let apple = try apple()
        let input = try request.content.decode(AppleSignInInput.self, using: JSONDecoder.api)
        try input.check()
        let scope = try await SignInScope.parse(scope: input.scope, deviceID: input.deviceID, in: databases)
        let claims: AppleIdentityClaims
        do {
            claims = try await apple.identityTokens.verify(input.identityToken, rawNonce: input.nonce)
        } catch {
            throw APIError(.unauthorized, code: "invalid_identity_token", reason: "The identity token was refused: \(error).", field: "identityToken")
        }
        // Consume the nonce: a replayed identity token carries a nonce already used.
        let now = clock.now()
        guard try await AppleAccounts.consumeNonce(input.nonce, now: now, on: databases.primary) else {
            throw APIError(.unauthorized, code: "nonce_invalid",
                           reason: "The nonce is unknown, already used or expired; get a new one from POST /auth/apple/nonce and sign in again.",
                           field: "nonce")
        }
        guard let client = apple.tokenClients[claims.audience] else {
            throw APIError(.unauthorized, code: "invalid_identity_token", reason: "The token's audience \(claims.audience) is not a configured client id.")
        }
        let tokens: AppleTokenResponse
        do {
            tokens = try await client.exchangeCode(input.authorizationCode)
        } catch where error.isTransient {
            throw APIError(.serviceUnavailable, code: "apple_unavailable", reason: "Apple's token endpoint could not be reached (\(error)); try again.")
        } catch {
            throw APIError(.unauthorized, code: "authorization_code_rejected",
                           reason: "Apple refused the authorization code (\(error)); codes are single-use and live 5 minutes.", field: "authorizationCode")
        }
        if let idToken = tokens.idToken, let exchanged = try? await apple.identityTokens.verify(idToken, rawNonce: nil),
           exchanged.subject != claims.subject {
            throw APIError(.unauthorized, code: "code_subject_mismatch",
                           reason: "The authorization code belongs to another user than the identity token.", field: "authorizationCode")
        }
        let user = try await AppleAccounts.signIn(claims, displayName: input.displayName,
                                                  sealedRefreshToken: try tokens.refreshToken.map { try sessions.sealer.seal($0) },
                                                  now: now, on: databases.primary)
        let grant = try await sessions.startSession(for: user, clientID: claims.audience, deviceSSO: scope.deviceSSO,
                                                    deviceID: scope.deviceID, checkOut: .signInWithApple, on: databases.primary)
        return try noStore(grant)
    }

    @Sendable func refresh(request: Request) async throws -> Response {
        let input = try request.content.decode(RefreshInput.self, using: JSONDecoder.api)
        let database = databases.primary
        let apple = appleSignIn
        let grant = try await sessions.refresh(input.refreshToken, on: database) { user in
            guard let apple else { return .valid }
            return await apple.grantChecks.check(user, on: database)
        }
        return try noStore(grant)
    }

    /// `POST /auth/logout` ends this session; `?scope=device` ends the device session too: the
    /// device secret and every sibling app's session derived from it.
    @Sendable func logout(request: Request) async throws -> HTTPStatus {
        guard let sessionID = try request.session.sessionID else { throw APIError(.unauthorized, code: "unauthorized", reason: "Bad session.") }
        switch request.query[String.self, at: "scope"] {
        case nil, "session":
            try await sessions.revoke(sessions: [sessionID], reason: "logout", on: databases.primary)
        case "device":
            if let secretID = try await UserSession.stored(sessionID, on: databases.primary)?.deviceSecretID {
                try await sessions.revoke(deviceSecrets: [secretID], reason: "device_logout", on: databases.primary)
            }
            try await sessions.revoke(sessions: [sessionID], reason: "logout", on: databases.primary)
        case let other?:
            throw APIError(.badRequest, code: "invalid_scope", reason: "scope '\(other.prefix(40))' is not known; use 'session' (default) or 'device'.", field: "scope")
        }
        return .noContent
    }

    @Sendable func notification(request: Request) async throws -> NotificationOutput {
        let apple = try apple()
        let body = request.body.data.map { Data(buffer: $0) } ?? Data()
        let note: ServerNotification
        do {
            note = try await apple.notifications.verify(requestBody: body)
        } catch {
            throw APIError(.badRequest, code: "invalid_notification", reason: "The notification was refused: \(error).", field: "payload")
        }
        let processed = try await AppleAccounts.process(note, now: clock.now(), sessions: sessions, on: databases.primary)
        return NotificationOutput(status: processed ? "processed" : "duplicate", event: note.event.kind.rawValue)
    }

    @Sendable func showMe(request: Request) async throws -> MeOutput {
        let principal = try request.session
        guard let id = principal.userID else { throw APIError(.unauthorized, code: "invalid_access_token", reason: "Bad subject.") }
        return MeOutput(id: id, email: principal.claims.email)
    }

    @Sendable func deleteMe(request: Request) async throws -> HTTPStatus {
        guard let userID = try request.session.userID, let user = try await User.stored(userID, on: databases.primary) else {
            throw APIError(.unauthorized, code: "session_revoked", reason: "The account no longer exists.")
        }
        if let sealed = user.appleRefreshToken, let client = user.appleClientID.flatMap({ appleSignIn?.tokenClients[$0] }) {
            do {
                try await client.revoke(try sessions.sealer.openString(sealed))
            } catch let error as AppleTokenError where error.isTransient {
                throw APIError(.serviceUnavailable, code: "apple_unavailable",
                               reason: "Apple could not be reached to revoke the Sign in with Apple grant (\(error)); nothing was deleted. Try again.")
            }
        }
        try await sessions.deleteAccount(userID: userID, reason: "account_deleted", on: databases.primary)
        return .noContent
    }

    private func noStore(_ grant: SessionGrant) throws -> Response {
        let response = Response(status: .ok)
        try response.content.encode(grant)
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        return response
    }
}
