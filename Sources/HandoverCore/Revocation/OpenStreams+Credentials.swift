import Foundation
import HandoverSchema

/// The credential an event stream is opened with, registered in ``OpenStreams`` so that the
/// stream ends with it: an API key (revoked, or expired), or a dashboard session (signed out,
/// ended by the provider or with its key, timed out).
extension OpenStreams {
    /// A stream opened with the API key `keyID` (a run's or an operation's events), which works
    /// until `expiresAt` unless revoked.
    package func lease(forKey keyID: UUID, expiresAt: Date?, clock: any ServerClock, on database: DatabaseHandle) -> StreamLease {
        open(credentials: [.apiKey(keyID)], liveUntil: expiresAt ?? .distantFuture, now: clock.now()) {
            try await APIKey.liveUntil(keyID, now: clock.now(), on: database)
        }
    }

    /// A stream opened with a dashboard session (the live overview, the tester's rounds).
    package func lease(for session: DashboardSession, sessions: DashboardSessions, on database: DatabaseHandle) throws -> StreamLease {
        let sessionID = try session.storedID
        var credentials: Set<RevokedCredential> = [.dashboardSession(sessionID)]
        if let key = session.apiKeyID { credentials.insert(.apiKey(key)) }
        let until = min(session.expiresAt, session.lastSeenAt.addingTimeInterval(sessions.limits.idle))
        return open(credentials: credentials, liveUntil: until, now: sessions.now()) {
            try await sessions.liveUntil(sessionID: sessionID, on: database)
        }
    }
}
