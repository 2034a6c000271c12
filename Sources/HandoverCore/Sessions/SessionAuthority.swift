import Foundation
import HandoverProtocol
import HandoverSchema
import Logging
import NIOConcurrencyHelpers
import SessionTokens

/// The server's own sessions: issues access and refresh tokens, rotates refresh tokens,
/// authenticates requests, and revokes.
///
/// - Access tokens are ES256 JWTs (``SessionKeyRing``) checked without a database read. A
///   revoked session's tokens are refused at once on the instance that revoked it, on other
///   PostgreSQL instances as soon as they hear `NOTIFY handover_session_revoked`, and everywhere
///   within one access-token lifetime. With strict sessions each request also reads its session
///   row, so revocation holds at once everywhere.
/// - Refresh tokens are random, stored as SHA-256, used once. A second use of the same one means
///   it was copied: the whole session is revoked.
///
/// Its statements are ``SessionStore``'s.
package final class SessionAuthority: Sendable {
    package static let revocationChannel = "handover_session_revoked"

    package let ring: SessionKeyRing
    package let revocations = RevocationList()
    package let settings: SessionSettings
    package let sealer: SecretSealer
    package let keys: SigningKeyStore
    package let clock: ServerClock
    package let usesPostgres: Bool
    package let logger: Logger
    private let lastKeyReload = NIOLockedValueBox<Date?>(nil)

    /// - Parameter issuer: the `iss` of access tokens: the configured public URL, or `handover`
    ///   when none is set (so that instances on other ports still accept each other's tokens).
    package init(settings: SessionSettings, sealer: SecretSealer, clock: ServerClock, issuer: String, usesPostgres: Bool, logger: Logger) {
        self.settings = settings
        self.sealer = sealer
        self.clock = clock
        self.usesPostgres = usesPostgres
        self.logger = logger
        self.ring = SessionKeyRing(issuer: issuer)
        self.keys = SigningKeyStore(ring: ring, sealer: sealer, settings: settings)
    }

    /// The `iss` for a configuration: its public URL without a trailing slash, or `handover`.
    package static func issuer(publicURL: URL?) -> String {
        guard var text = publicURL?.absoluteString else { return "handover" }
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }

    /// Loads the signing keys and the sessions revoked within one access-token lifetime.
    package func start(on database: DatabaseHandle) async throws {
        let now = clock.now()
        try await keys.synchronize(on: database, now: now)
        let recent = try await SessionStore(database).sessionsRevoked(since: now.addingTimeInterval(-settings.accessTokenLifetime))
        for session in recent {
            if let id = session.id, let at = session.revokedAt {
                revocations.revoke(id.uuidString, until: at.addingTimeInterval(settings.accessTokenLifetime))
            }
        }
    }

    /// Periodic upkeep: key rotation, pruning revocations, forgetting expired nonces and the
    /// expired tokens of the replay cache.
    package func maintain(on database: DatabaseHandle) async throws {
        let now = clock.now()
        try await keys.synchronize(on: database, now: now)
        revocations.prune(now: now)
        let store = SessionStore(database)
        try await store.deleteExpiredNonces(now: now)
        try await store.pruneReplays(now: now)
    }

    // MARK: Issuing

    /// Starts a new session for `user` and returns its first token pair.
    ///
    /// - Parameters:
    ///   - clientID: the app (bundle id) signing in, when known.
    ///   - deviceSSO: with scope `device_sso`: also issue a device secret (bound to the fleet
    ///     device `deviceID` when given) and an ID token carrying `sid` and `ds_hash`.
    ///   - derivedFrom: for a Native SSO exchange, the device secret the session comes from.
    ///   - checkOut: how the person signed in; with a device (`deviceID`, or the device secret's),
    ///     the device is checked out to them first (``CustodyLedger``), or the sign-in is refused
    ///     when they hold as many other devices as ``SessionSettings/custodyLimit`` allows.
    package func startSession(for user: User, clientID: String? = nil, deviceSSO: Bool = false, deviceID: UUID? = nil,
                      derivedFrom: DeviceSecret? = nil, checkOut: Custody.CheckOut? = nil, on database: DatabaseHandle) async throws -> SessionGrant {
        let now = clock.now()
        let store = SessionStore(database)
        if let checkOut, let device = deviceID ?? derivedFrom?.deviceID {
            try await CustodyLedger(limit: settings.custodyLimit).checkOut(device, to: user, by: checkOut, on: database, now: now)
        }
        var deviceSecret: (record: DeviceSecret, secret: String?)?
        if let derivedFrom {
            deviceSecret = (derivedFrom, nil)
        } else if deviceSSO, let clientID {
            let secret = "hds_" + BearerSecret.random()
            let record = DeviceSecret()
            record.secretHash = BearerSecret.digest(secret)
            record.userID = try user.storedID
            record.deviceID = deviceID
            record.clientID = clientID
            record.createdAt = now
            try await store.insert(record)
            deviceSecret = (record, secret)
        }
        let session = UserSession()
        session.userID = try user.storedID
        session.createdAt = now
        session.expiresAt = now.addingTimeInterval(settings.refreshTokenLifetime)
        session.clientID = clientID
        session.deviceSecretID = deviceSecret?.record.id
        session.deviceID = deviceID ?? derivedFrom?.deviceID
        try await store.insert(session)
        let refreshToken = try await store.addRefreshToken(to: session.storedID, now: now)
        var grant = try await grant(user: user, sessionID: session.storedID, clientID: clientID, refreshToken: refreshToken, now: now)
        if let deviceSecret, let clientID {
            grant.idToken = try await idToken(for: user, clientID: clientID, deviceSecret: deviceSecret.record, now: now)
            grant.deviceSecret = deviceSecret.secret
        }
        return grant
    }

    /// An ID token for `clientID` naming the device session and binding its secret.
    package func idToken(for user: User, clientID: String, deviceSecret: DeviceSecret, now: Date) async throws -> String {
        let claims = IDTokenClaims(issuer: ring.issuer, userID: try user.storedID.uuidString, audience: clientID,
                                   sessionID: try deviceSecret.storedID.uuidString,
                                   deviceSecretHash: deviceSecret.secretHashForIDToken,
                                   email: user.email, issuedAt: now, expiresAt: now.addingTimeInterval(settings.accessTokenLifetime))
        return try await ring.sign(idToken: claims)
    }

    private func grant(user: User, sessionID: UUID, clientID: String?, refreshToken: String, now: Date) async throws -> SessionGrant {
        let userID = try user.storedID
        let claims = AccessTokenClaims(issuer: ring.issuer, userID: userID.uuidString, audience: clientID ?? ring.issuer, sessionID: sessionID.uuidString,
                                       email: user.email, issuedAt: now, expiresAt: now.addingTimeInterval(settings.accessTokenLifetime))
        let accessToken = try await ring.sign(claims)
        return SessionGrant(accessToken: accessToken, refreshToken: refreshToken, expiresIn: Int(settings.accessTokenLifetime),
                            user: .init(id: userID, email: user.email))
    }

    // MARK: Refreshing

    /// Rotates `refreshToken`: marks it used and returns a new pair.
    ///
    /// - Parameter checkWithApple: asked before rotating; answers whether the user's Apple grant
    ///   still holds (it checks with Apple at most once a day).
    package func refresh(_ refreshToken: String, on database: DatabaseHandle,
                 checkWithApple: @Sendable (User) async -> AppleGrantCheck) async throws -> SessionGrant {
        let now = clock.now()
        guard refreshToken.hasPrefix("hrt_"),
              let record = try await SessionStore(database).refreshToken(digest: BearerSecret.digest(refreshToken))
        else {
            throw DomainError(.unauthenticated, code: "invalid_refresh_token", reason: "The refresh token is unknown. Sign in again.", field: "refreshToken")
        }
        guard let session = try await UserSession.stored(record.sessionID, on: database), session.revokedAt == nil else {
            throw DomainError(.unauthenticated, code: "session_revoked", reason: "This session was signed out. Sign in again.")
        }
        guard record.usedAt == nil else {
            try await revoke(sessions: [record.sessionID], reason: "refresh_token_reused", on: database)
            throw DomainError(.unauthenticated, code: "refresh_token_reused",
                           reason: "This refresh token was already used, so it may have been copied; the whole session is now signed out. Sign in again.")
        }
        guard session.expiresAt > now else {
            throw DomainError(.unauthenticated, code: "session_expired", reason: "The session was unused too long. Sign in again.")
        }
        guard let user = try await User.stored(session.userID, on: database) else {
            throw DomainError(.unauthenticated, code: "session_revoked", reason: "The account no longer exists.")
        }
        if case .revoked = await checkWithApple(user) {
            try await revokeAll(userID: session.userID, reason: "apple_grant_revoked", on: database)
            throw DomainError(.unauthenticated, code: "apple_grant_revoked",
                           reason: "Apple says this Sign in with Apple grant was revoked; every session of this user is signed out.")
        }
        let sessionID = try session.storedID
        let next = try await SessionStore(database).rotate(record, of: sessionID, sessionLifetime: settings.refreshTokenLifetime, now: now)
        guard let next else {
            // Another request used it between our read and our update: the same reuse.
            try await revoke(sessions: [sessionID], reason: "refresh_token_reused", on: database)
            throw DomainError(.unauthenticated, code: "refresh_token_reused",
                           reason: "This refresh token was already used; the whole session is now signed out. Sign in again.")
        }
        var rotated = try await grant(user: user, sessionID: sessionID, clientID: session.clientID, refreshToken: next, now: now)
        if let secretID = session.deviceSecretID, let clientID = session.clientID,
           let secret = try await DeviceSecret.stored(secretID, on: database), secret.revokedAt == nil {
            rotated.idToken = try await idToken(for: user, clientID: clientID, deviceSecret: secret, now: now)
        }
        return rotated
    }

    // MARK: Authenticating

    /// The claims of a valid access token whose session is not revoked.
    package func authenticate(_ token: String, on database: DatabaseHandle) async throws -> AccessTokenClaims {
        let claims: AccessTokenClaims
        do { claims = try await verified(token, on: database) } catch { throw Self.unauthorized(error) }
        if revocations.isRevoked(claims.sessionID) { throw Self.unauthorized(.revoked) }
        if settings.strict {
            guard let id = UUID(uuidString: claims.sessionID), let session = try await UserSession.stored(id, on: database),
                  session.revokedAt == nil else {
                throw Self.unauthorized(.revoked)
            }
        }
        return claims
    }

    /// The claims of `token` when its signature, `iss` and `exp` hold (rereading the keys once when
    /// another instance may have rotated), whether or not its session was revoked.
    package func verified(_ token: String, on database: DatabaseHandle) async throws(AccessTokenError) -> AccessTokenClaims {
        let now = clock.now()
        do {
            return try await ring.verify(token, now: now)
        } catch {
            guard case .unknownKey = error, await reloadKeys(on: database, now: now) else { throw error }
            return try await ring.verify(token, now: now)
        }
    }

    /// Another instance may have rotated: reread the keys, at most once every 10 seconds.
    private func reloadKeys(on database: DatabaseHandle, now: Date) async -> Bool {
        let due = lastKeyReload.withLockedValue { last in
            if let last, now.timeIntervalSince(last) < 10 { return false }
            last = now
            return true
        }
        guard due else { return false }
        do { try await keys.synchronize(on: database, now: now) } catch {
            logger.warning("could not reload session signing keys", metadata: ["error": "\(error)"])
            return false
        }
        return true
    }

    package static func unauthorized(_ error: AccessTokenError) -> DomainError {
        if case .revoked = error {
            return DomainError(.unauthenticated, code: "session_revoked", reason: "This session was signed out. Sign in again.")
        }
        return DomainError(.unauthenticated, code: "invalid_access_token",
                        reason: "Send a valid access token as 'Authorization: Bearer <accessToken>' (\(error)); refresh it with POST /auth/refresh.")
    }

    // MARK: Revoking

    /// Revokes sessions: in the database, in this instance's memory at once, and on other
    /// instances through NOTIFY (PostgreSQL).
    ///
    /// In the same transaction, every backend owed a Back-Channel Logout token for a session that
    /// was live gets its outbox row (``BackChannelLogoutOutbox``).
    ///
    /// - Parameters:
    ///   - deviceID: the fleet device whose hand-over ends them, when one does.
    ///   - runID: the logout run that ends them, when one does; its report shows the deliveries.
    package func revoke(sessions ids: [UUID], reason: String, deviceID: UUID? = nil, runID: UUID? = nil, on database: DatabaseHandle) async throws {
        guard !ids.isEmpty else { return }
        let now = clock.now()
        try await database.inTransaction { db in
            try await self.end(sessions: ids, reason: reason, deviceID: deviceID, runID: runID, on: db, now: now)
        }
        announce(ids.map(\.uuidString), now: now)
        await notifyOthers(ids, on: database)
    }

    /// Ends sessions in the caller's transaction: marks the live ones revoked and writes the
    /// outbox rows of their backends' logout tokens. Nothing is announced: the caller does that
    /// once the transaction has committed (``announce(_:now:)``).
    package func end(sessions ids: [UUID], reason: String, deviceID: UUID?, runID: UUID?, on db: DatabaseHandle, now: Date) async throws {
        try await SessionStore(db).endSessions(ids, reason: reason, deviceID: deviceID, runID: runID, issuer: ring.issuer, now: now)
    }

    /// Revokes device secrets and every session that came with or from them (global sign-out),
    /// in one transaction.
    package func revoke(deviceSecrets ids: [UUID], reason: String, deviceID: UUID? = nil, runID: UUID? = nil, on database: DatabaseHandle) async throws {
        guard !ids.isEmpty else { return }
        let now = clock.now()
        let ended = try await database.inTransaction { db in
            try await self.end(deviceSecrets: ids, reason: reason, deviceID: deviceID, runID: runID, on: db, now: now)
        }
        announce(ended.map(\.uuidString), now: now)
        await notifyOthers(ended, on: database)
    }

    /// Ends device secrets and their sessions in the caller's transaction; returns the sessions,
    /// for the caller to announce once it has committed.
    package func end(deviceSecrets ids: [UUID], reason: String, deviceID: UUID?, runID: UUID?, on db: DatabaseHandle, now: Date) async throws -> [UUID] {
        try await SessionStore(db).endDeviceSecrets(ids, reason: reason, deviceID: deviceID, runID: runID, issuer: ring.issuer, now: now)
    }

    /// Tells the other instances (PostgreSQL NOTIFY) that sessions ended. Inside a transaction
    /// the notifications leave at COMMIT, and not at all on ROLLBACK.
    package func notifyOthers(_ ids: [UUID], on database: DatabaseHandle) async {
        guard usesPostgres else { return }
        let store = SessionStore(database)
        for id in ids {
            do {
                try await store.notify(id, on: Self.revocationChannel)
            } catch {
                logger.warning("NOTIFY of a revocation failed; other instances honour it within the access-token lifetime",
                               metadata: ["error": "\(error)"])
            }
        }
    }

    /// Revokes every live session of a user.
    package func revokeAll(userID: UUID, reason: String, on database: DatabaseHandle) async throws {
        let ids = try await SessionStore(database).liveSessionIDs(ofUser: userID)
        try await revoke(sessions: ids, reason: reason, on: database)
    }

    /// Marks sessions revoked in this instance's memory (also called on NOTIFY from others).
    package func announce(_ sessionIDs: [String], now: Date? = nil) {
        let until = (now ?? clock.now()).addingTimeInterval(settings.accessTokenLifetime + 60)
        for id in sessionIDs { revocations.revoke(id, until: until) }
    }
}

/// What Apple said about a user's grant when a refresh asked.
package enum AppleGrantCheck: Sendable {
    /// Still valid, checked recently, not checkable now (kept open), or no Apple token held.
    case valid
    /// Apple answered `invalid_grant`: the user revoked the app or the account is gone.
    case revoked
}

extension SessionAuthority {
    /// Deletes a user's data: the user row and refresh tokens go; the session rows stay (they
    /// hold no personal data) marked revoked, so their access tokens stay refused.
    package func deleteAccount(userID: UUID, reason: String, on database: DatabaseHandle) async throws {
        try await revokeAll(userID: userID, reason: reason, on: database)
        try await SessionStore(database).deleteAccount(userID: userID)
    }
}
