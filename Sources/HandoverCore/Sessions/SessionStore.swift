import FluentKit
import Foundation
import HandoverSchema
import SQLKit

/// The sessions area's statements: the server's own sessions, their refresh tokens and Native SSO
/// device secrets, what a hand-over ends on a device, the access-token signing keys, the server's
/// own secrets, Sign in with Apple's nonces, accounts and notifications, and email-link sign-in's
/// links. ``SessionAuthority``, ``HandOverSignOut``, ``SigningKeyStore``, ``ServerSecrets``,
/// ``AppleAccounts``, ``AppleGrantChecks`` and ``EmailSignInLinks`` decide; this runs what they
/// decided.
package struct SessionStore: Sendable {
    package let database: DatabaseHandle
    package init(_ database: DatabaseHandle) { self.database = database }

    /// Whether the database speaks SQL (both drivers do).
    package var speaksSQL: Bool { database is any SQLDatabase }

    /// The database as SQL, or a storage error (neither driver fails this).
    private func sql() throws -> any SQLDatabase { try ServerDatabases.sql(database) }

    // MARK: Sessions

    /// Reads the sessions revoked at or after `since`.
    package func sessionsRevoked(since: Date) async throws -> [UserSession] {
        try await UserSession.query(on: database)
            .filter(\.$revokedAt >= since).all()
    }

    /// Writes a new session row.
    package func insert(_ session: UserSession) async throws {
        try await session.create(on: database)
    }

    /// Writes a new device secret row.
    package func insert(_ secret: DeviceSecret) async throws {
        try await secret.create(on: database)
    }

    /// Stores a new refresh token for the session (as its digest); returns the token.
    package func addRefreshToken(to sessionID: UUID, now: Date) async throws -> String {
        let token = "hrt_" + BearerSecret.random()
        let record = RefreshTokenRecord()
        record.sessionID = sessionID
        record.tokenHash = BearerSecret.digest(token)
        record.createdAt = now
        try await record.create(on: database)
        return token
    }

    /// Reads the refresh token whose digest is `digest`, used or not.
    package func refreshToken(digest: String) async throws -> RefreshTokenRecord? {
        try await RefreshTokenRecord.query(on: database).filter(\.$tokenHash == digest).first()
    }

    /// Rotates a refresh token in one transaction: marks `record` used unless it already was,
    /// extends its session by `sessionLifetime` and stores the next token; returns it, or nil
    /// when the token was used meanwhile (or the database does not speak SQL).
    package func rotate(_ record: RefreshTokenRecord, of sessionID: UUID, sessionLifetime: TimeInterval, now: Date) async throws -> String? {
        try await database.inTransaction { db -> String? in
            guard let sql = db as? any SQLDatabase else { return nil }
            let rows = try await sql.raw("""
                UPDATE refresh_tokens SET used_at = \(bind: now) WHERE id = \(bind: record.requireID()) AND used_at IS NULL RETURNING id
                """).all()
            guard !rows.isEmpty else { return nil }
            try await UserSession.query(on: db).filter(\.$id == sessionID)
                .set(\.$expiresAt, to: now.addingTimeInterval(sessionLifetime)).update()
            return try await SessionStore(db).addRefreshToken(to: sessionID, now: now)
        }
    }

    /// Reads the device secret whose digest is `digest`, revoked or not.
    package func deviceSecret(digest: String) async throws -> DeviceSecret? {
        try await DeviceSecret.query(on: database).filter(\.$secretHash == digest).first()
    }

    /// Reads the ids of a user's live sessions.
    package func liveSessionIDs(ofUser userID: UUID) async throws -> [UUID] {
        try await UserSession.query(on: database).filter(\.$userID == userID).filter(\.$revokedAt == nil).all().compactMap(\.id)
    }

    /// Marks the live sessions among `ids` revoked and writes the outbox rows of their backends'
    /// logout tokens and of their Shared Signals events, in the caller's transaction.
    package func endSessions(_ ids: [UUID], reason: String, deviceID: UUID?, runID: UUID?, issuer: String, now: Date) async throws {
        // The write comes first: on SQLite (WAL) a transaction that reads first and writes
        // after another connection committed fails with SQLITE_BUSY instead of waiting.
        guard !ids.isEmpty, let sql = database as? any SQLDatabase else { return }
        let db = database
        let rows = try await sql.raw("""
            UPDATE user_sessions SET revoked_at = \(bind: now), revoke_reason = \(bind: reason)
            WHERE id IN (\(binds: ids)) AND revoked_at IS NULL RETURNING id
            """).all()
        let ended = try rows.map { try $0.decode(column: "id", as: UUID.self) }
        guard !ended.isEmpty else { return }
        let sessions = try await UserSession.query(on: db).filter(\.$id ~~ ended).all()
        try await BackChannelLogoutOutbox.enqueue(sessions: sessions, reason: reason, deviceID: deviceID, runID: runID, on: db, now: now)
        // Shared Signals: CAEP session-revoked for each, to every stream that carries it.
        try await SharedSignalsOutbox.enqueue(on: sql, now: now) {
            let users = Array(Set(sessions.map(\.userID)))
            let emails = try await sql.raw("SELECT id, email FROM users WHERE id IN (\(binds: users))").all()
                .reduce(into: [UUID: String]()) { $0[try $1.decode(column: "id", as: UUID.self)] = try $1.decode(column: "email", as: String?.self) }
            return sessions.compactMap { session in
                session.id.map {
                    SecurityEvent.sessionRevoked(session: $0, user: session.userID, email: emails[session.userID], device: session.deviceID ?? deviceID,
                                                 issuer: issuer, reason: reason, run: runID, app: session.clientID, at: now)
                }
            }
        }
    }

    /// Marks the device secrets `ids` revoked, writes their Shared Signals events, and ends the
    /// live sessions that came with or from them (``endSessions(_:reason:deviceID:runID:issuer:now:)``),
    /// in the caller's transaction; returns those sessions.
    package func endDeviceSecrets(_ ids: [UUID], reason: String, deviceID: UUID?, runID: UUID?, issuer: String, now: Date) async throws -> [UUID] {
        guard !ids.isEmpty else { return [] }
        let db = database
        try await DeviceSecret.query(on: db).filter(\.$id ~~ ids).filter(\.$revokedAt == nil).set(\.$revokedAt, to: now).update()
        if let sql = db as? any SQLDatabase {
            // Shared Signals: each Native SSO device secret revoked is CAEP credential-change.
            try await SharedSignalsOutbox.enqueue(on: sql, now: now) {
                try await sql.raw("SELECT user_id, device_id FROM device_secrets WHERE id IN (\(binds: ids))").all().map { row in
                    SecurityEvent.credentialRevoked(device: try row.decode(column: "device_id", as: UUID?.self) ?? deviceID,
                                                    user: try row.decode(column: "user_id", as: UUID.self), email: nil, issuer: issuer,
                                                    name: "Native SSO device secret", at: now)
                }
            }
        }
        let sessions = try await UserSession.query(on: db).filter(\.$deviceSecretID ~~ ids).filter(\.$revokedAt == nil).all().compactMap(\.id)
        try await endSessions(sessions, reason: reason, deviceID: deviceID, runID: runID, issuer: issuer, now: now)
        return sessions
    }

    /// Sends `id` on the PostgreSQL channel `channel` (`pg_notify`); nothing on a database that
    /// does not speak SQL. In a transaction it leaves at COMMIT.
    package func notify(_ id: UUID, on channel: String) async throws {
        guard let sql = database as? any SQLDatabase else { return }
        try await sql.raw("SELECT pg_notify(\(bind: channel), \(bind: id.uuidString))").run()
    }

    /// Deletes a user's row and their sessions' refresh tokens; the session rows stay.
    package func deleteAccount(userID: UUID) async throws {
        let sessionIDs = try await UserSession.query(on: database).filter(\.$userID == userID).all().compactMap(\.id)
        if !sessionIDs.isEmpty {
            try await RefreshTokenRecord.query(on: database).filter(\.$sessionID ~~ sessionIDs).delete()
        }
        try await User.query(on: database).filter(\.$id == userID).delete()
    }

    /// Deletes the Sign in with Apple nonces expired before `now`.
    package func deleteExpiredNonces(now: Date) async throws {
        try await AppleNonce.query(on: database).filter(\.$expiresAt < now).delete()
    }

    /// Deletes the replay cache's expired tokens (``TokenReplayCache/prune(on:now:)``).
    package func pruneReplays(now: Date) async throws {
        if let sql = database as? any SQLDatabase { try await TokenReplayCache.prune(on: sql, now: now) }
    }

    // MARK: A hand-over

    /// Reads which of `devices` a hand-over has something to end on (``HandOverSignOut/occupied(_:on:)``).
    package func occupied(_ devices: [UUID]) async throws -> Set<UUID> {
        try await HandOverSignOut.occupied(devices, on: sql())
    }

    /// Reads the ids of the live Native SSO device secrets bound to `device`.
    package func liveDeviceSecretIDs(onDevice device: UUID) async throws -> [UUID] {
        try await sql().raw("SELECT id FROM device_secrets WHERE device_id = \(bind: device) AND revoked_at IS NULL")
            .all().map { try $0.decode(column: "id", as: UUID.self) }
    }

    /// Reads the ids of the live sessions signed in with `device`.
    package func liveSessionIDs(onDevice device: UUID) async throws -> [UUID] {
        try await sql().raw("SELECT id FROM user_sessions WHERE device_id = \(bind: device) AND revoked_at IS NULL")
            .all().map { try $0.decode(column: "id", as: UUID.self) }
    }

    /// Stops the pushes to the phone enrolled with `device`.
    package func stopPushes(toDevice device: UUID) async throws {
        try await sql().raw("""
            UPDATE enrolled_devices SET push_token_active = \(bind: false)
            WHERE fleet_device_id = \(bind: device) AND push_token_active = \(bind: true)
            """).run()
    }

    /// Checks the held devices of a batch of hand-overs in, each custody ending with its run
    /// (``CustodyLedger/checkIn(_:on:now:)``, one statement).
    package func checkIn(_ handOvers: [(device: UUID, run: UUID)], now: Date) async throws {
        try await CustodyLedger.checkIn(handOvers, on: sql(), now: now)
    }

    // MARK: Signing keys

    /// Reads the session signing keys created at or after `since`.
    package func signingKeys(createdSince since: Date) async throws -> [SessionSigningKeyRecord] {
        try await SessionSigningKeyRecord.query(on: database).filter(\.$createdAt >= since).all()
    }

    /// Writes a new session signing key.
    package func insert(_ key: SessionSigningKeyRecord) async throws {
        try await key.create(on: database)
    }

    /// Deletes the session signing keys created before `before`.
    package func deleteSigningKeys(createdBefore before: Date) async throws {
        try await SessionSigningKeyRecord.query(on: database).filter(\.$createdAt < before).delete()
    }

    // MARK: The server's secrets

    /// Reads the server setting named `key`.
    package func setting(_ key: String) async throws -> ServerSetting? {
        try await ServerSetting.find(key, on: database)
    }

    /// Writes a new server setting.
    package func insert(_ setting: ServerSetting) async throws {
        try await setting.create(on: database)
    }

    /// Writes a changed server setting.
    package func save(_ setting: ServerSetting) async throws {
        try await setting.save(on: database)
    }

    /// Reads every webhook.
    package func webhooks() async throws -> [Webhook] {
        try await Webhook.query(on: database).all()
    }

    /// Writes a changed webhook.
    package func save(_ hook: Webhook) async throws {
        try await hook.save(on: database)
    }

    // MARK: Sign in with Apple

    /// Writes a new nonce.
    package func insert(_ nonce: AppleNonce) async throws {
        try await nonce.create(on: database)
    }

    /// Deletes the unexpired nonce whose digest is `digest`; returns whether there was one.
    package func consumeNonce(digest: String, now: Date) async throws -> Bool {
        let sql = try ServerDatabases.sql(database)
        let consumed = try await sql.raw("""
            DELETE FROM apple_nonces WHERE nonce_hash = \(bind: digest)
            AND expires_at > \(bind: now) RETURNING id
            """).all()
        return !consumed.isEmpty
    }

    /// Reads the account linked to Apple's subject `subject`.
    package func user(appleSubject subject: String) async throws -> User? {
        try await User.query(on: database).filter(\.$appleSubject == subject).first()
    }

    /// Reads the account of `email` that no Apple subject is linked to.
    package func unlinkedUser(email: String) async throws -> User? {
        try await User.query(on: database).filter(\.$email == email).filter(\.$appleSubject == nil).first()
    }

    /// Reads the account of `email`.
    package func user(email: String) async throws -> User? {
        try await User.query(on: database).filter(\.$email == email).first()
    }

    /// Writes a new account.
    package func insert(_ user: User) async throws {
        try await user.create(on: database)
    }

    /// Writes an account, new or changed.
    package func save(_ user: User) async throws {
        try await user.save(on: database)
    }

    /// Reads the record of Apple's notification `jwtID`, if it was processed.
    package func appleNotification(jwtID: String) async throws -> AppleNotificationRecord? {
        try await AppleNotificationRecord.query(on: database).filter(\.$jwtID == jwtID).first()
    }

    /// Writes the record of a notification processed.
    package func insert(_ record: AppleNotificationRecord) async throws {
        try await record.create(on: database)
    }

    /// Claims the check of a user's Apple grant until `until`: true unless another claim holds
    /// at `now` or the grant was checked within `interval`.
    package func claimAppleCheck(userID: UUID, until: Date, now: Date, interval: TimeInterval) async throws -> Bool {
        let claimed = try await sql().raw("""
            UPDATE users SET apple_check_claimed_until = \(bind: until)
            WHERE id = \(bind: userID) AND (apple_check_claimed_until IS NULL OR apple_check_claimed_until < \(bind: now))
            AND (apple_validated_at IS NULL OR apple_validated_at < \(bind: now.addingTimeInterval(-interval))) RETURNING id
            """).all()
        return !claimed.isEmpty
    }

    /// Marks a user's Apple grant checked valid at `at`, releasing the claim.
    package func appleGrantValid(userID: UUID, at: Date) async throws {
        try await User.query(on: database).filter(\.$id == userID)
            .set(\.$appleValidatedAt, to: at).set(\.$appleCheckClaimedUntil, to: nil).update()
    }

    /// Forgets a user's revoked Apple refresh token, releasing the claim.
    package func forgetAppleGrant(userID: UUID) async throws {
        try await User.query(on: database).filter(\.$id == userID)
            .set(\.$appleRefreshToken, to: nil).set(\.$appleCheckClaimedUntil, to: nil).update()
    }

    /// Holds the claim on a user's Apple grant check until `retryAt`.
    package func deferAppleCheck(userID: UUID, until retryAt: Date) async throws {
        try await User.query(on: database).filter(\.$id == userID).set(\.$appleCheckClaimedUntil, to: retryAt).update()
    }

    // MARK: Email links

    /// Writes a new email sign-in link.
    package func insert(_ link: EmailLoginToken) async throws {
        try await link.create(on: database)
    }

    /// Marks the usable link whose digest is `digest` used; returns its address and device, or
    /// nil when there was none (or the database does not speak SQL).
    package func useLink(digest: String, now: Date) async throws -> EmailSignInLinks.UsedLink? {
        guard let sql = database as? any SQLDatabase else { return nil }
        let rows = try await sql.raw("""
            UPDATE email_login_tokens SET used_at = \(bind: now)
            WHERE token_hash = \(bind: digest) AND used_at IS NULL AND expires_at > \(bind: now) RETURNING email, device_id
            """).all()
        guard let row = rows.first else { return nil }
        return EmailSignInLinks.UsedLink(email: try row.decode(column: "email", as: String.self),
                                         deviceID: try row.decode(column: "device_id", as: UUID?.self))
    }

    /// Reads the address of the usable link whose digest is `digest`.
    package func usableLinkEmail(digest: String, now: Date) async throws -> String? {
        try await EmailLoginToken.query(on: database).filter(\.$tokenHash == digest)
            .filter(\.$usedAt == nil).filter(\.$expiresAt > now).first()?.email
    }

    /// Reads the Apple team of the usable link whose digest is `digest` (nil when there is no
    /// such link, it names no team, or the database does not speak SQL).
    package func linkTeam(digest: String, now: Date) async throws -> String? {
        guard let sql = database as? any SQLDatabase else { return nil }
        return try await sql.raw("""
            SELECT client_team FROM email_login_tokens WHERE token_hash = \(bind: digest) AND used_at IS NULL AND expires_at > \(bind: now)
            """).first()?.decode(column: "client_team", as: String?.self)
    }
}

extension HandOverSignOut {
    /// The devices among `devices` that a hand-over has something to end on: a Native SSO device
    /// secret, a session signed in with the device, or an enrolled phone's pushes (one statement).
    package static func occupied(_ devices: [UUID], on sql: any SQLDatabase) async throws -> Set<UUID> {
        guard !devices.isEmpty else { return [] }
        let rows = try await sql.raw("""
            SELECT device_id AS device FROM device_secrets WHERE device_id IN (\(binds: devices)) AND revoked_at IS NULL
            UNION SELECT device_id FROM user_sessions WHERE device_id IN (\(binds: devices)) AND revoked_at IS NULL
            UNION SELECT fleet_device_id FROM enrolled_devices WHERE fleet_device_id IN (\(binds: devices)) AND push_token_active = \(bind: true)
            """).all()
        return Set(try rows.map { try $0.decode(column: "device", as: UUID.self) })
    }
}
