import Foundation
import HandoverSchema

/// How long a dashboard session lives (OWASP ASVS V3.3): it ends after ``idle`` without a
/// request and ``absolute`` after sign-in, whichever comes first.
public struct SessionLimits: Sendable, Equatable {
    /// Idle timeout; 15 minutes by default.
    public var idle: TimeInterval
    /// Absolute timeout; 12 hours by default.
    public var absolute: TimeInterval

    public init(idle: TimeInterval = 15 * 60, absolute: TimeInterval = 12 * 3600) {
        self.idle = idle
        self.absolute = absolute
    }
}

/// The dashboard's signed-in browsers: made at sign-in, found by their cookie, ended at sign-out,
/// by time, with the key that opened them, or for every browser of a person at once. Every end is
/// announced (``CredentialRevocations``), so the session's live streams end with it. The rows
/// are read and written through ``PeopleStore``.
package struct DashboardSessions: Sendable {
    package let limits: SessionLimits
    package let now: @Sendable () -> Date
    package let revocations: CredentialRevocations
    /// A session's `last_seen_at` is written again only after this long, so that browsing does
    /// not write on every page.
    package static let touchInterval: TimeInterval = 60

    package init(limits: SessionLimits, revocations: CredentialRevocations, now: @escaping @Sendable () -> Date) {
        self.limits = limits
        self.revocations = revocations
        self.now = now
    }

    /// What a new session belongs to.
    package enum Owner: Sendable {
        case person(Person, idToken: String?, providerSID: String?)
        case key(id: UUID, breakGlass: Bool)
    }

    /// A new session, with a new random token (a new session id at every sign-in); returns the
    /// cookie's value and the stored row.
    package func create(for owner: Owner, permissions: Permissions, on database: DatabaseHandle) async throws -> (token: String, session: DashboardSession) {
        let token = BearerSecret.random()
        let session = DashboardSession()
        session.tokenHash = BearerSecret.digest(token)
        session.csrfToken = BearerSecret.random()
        session.grants = permissions.text
        session.breakGlass = false
        switch owner {
        case .person(let person, let idToken, let sid):
            session.personID = person.id
            session.idToken = idToken
            session.providerSID = sid
        case .key(let id, let breakGlass):
            session.apiKeyID = id
            session.breakGlass = breakGlass
        }
        let now = now()
        session.createdAt = now
        session.lastSeenAt = now
        session.expiresAt = now.addingTimeInterval(limits.absolute)
        try await PeopleStore(database).insert(session)
        return (token, session)
    }

    /// The live session a cookie's token names, or nil. A session past either timeout, or opened
    /// with a key that has since been revoked or has expired, is ended when found; a live one has
    /// its last request moved forward (at most once a minute).
    package func find(token: String, on database: DatabaseHandle) async throws -> DashboardSession? {
        guard !token.isEmpty, token.utf8.count < 100,
              let session = try await PeopleStore(database).dashboardSession(tokenHash: BearerSecret.digest(token))
        else { return nil }
        let now = now()
        guard let until = try await liveUntil(session, on: database), until > now else {
            try await end([session], on: database)
            return nil
        }
        if now.timeIntervalSince(session.lastSeenAt) >= Self.touchInterval {
            session.lastSeenAt = now
            try await PeopleStore(database).update(session)
        }
        return session
    }

    /// Until when the session with this id stays live as things stand (its absolute timeout, its
    /// idle timeout from its last request, its key's expiry), or nil when it has ended: what a
    /// live stream opened with it checks again (``OpenStreams``).
    package func liveUntil(sessionID: UUID, on database: DatabaseHandle) async throws -> Date? {
        guard let session = try await DashboardSession.stored(sessionID, on: database) else { return nil }
        return try await liveUntil(session, on: database).flatMap { $0 > now() ? $0 : nil }
    }

    /// The earliest of the session's two timeouts and its key's expiry; nil when its key is
    /// revoked or gone.
    private func liveUntil(_ session: DashboardSession, on database: DatabaseHandle) async throws -> Date? {
        var until = min(session.expiresAt, session.lastSeenAt.addingTimeInterval(limits.idle))
        if let keyID = session.apiKeyID {
            guard let key = try await APIKey.stored(keyID, on: database), key.revokedAt == nil else { return nil }
            if let expiry = key.expiresAt { until = min(until, expiry) }
        }
        return until
    }

    /// Ends one browser's session (sign-out).
    package func end(_ session: DashboardSession, on database: DatabaseHandle) async throws {
        try await end([session], on: database)
    }

    /// Ends every session of a person ("sign out everywhere", the provider's logout token, a
    /// security event about them); returns how many ended.
    @discardableResult
    package func endAll(of personID: UUID, on database: DatabaseHandle) async throws -> Int {
        try await end(PeopleStore(database).dashboardSessions(of: personID), on: database)
    }

    /// Ends the sessions opened in the provider's session `sid`; returns how many ended.
    @discardableResult
    package func endAll(providerSID sid: String, on database: DatabaseHandle) async throws -> Int {
        try await end(PeopleStore(database).dashboardSessions(providerSID: sid), on: database)
    }

    /// Deletes `sessions` and announces their end; returns how many.
    @discardableResult
    private func end(_ sessions: [DashboardSession], on database: DatabaseHandle) async throws -> Int {
        let ids = sessions.compactMap(\.id)
        guard !ids.isEmpty else { return 0 }
        try await PeopleStore(database).removeDashboardSessions(ids)
        await revocations.announce(ids.map(RevokedCredential.dashboardSession), on: database)
        return ids.count
    }
}
