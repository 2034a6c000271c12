import Foundation
import HandoverSchema
import LinkCallbacks

/// What the token endpoints read of the server's own sessions: the session a refresh token
/// belongs to, and the device secret an actor token presents.
extension SessionAuthority {
    /// The refresh token's record and its session, or nil for a token this server never issued
    /// (or whose session was deleted).
    package func refreshTokenSession(_ token: String, on database: DatabaseHandle) async throws -> (record: RefreshTokenRecord, session: UserSession)? {
        guard let record = try await SessionStore(database).refreshToken(digest: BearerSecret.digest(token)),
              let session = try await UserSession.stored(record.sessionID, on: database) else { return nil }
        return (record, session)
    }

    /// The device secret `token` is, if this server issued it (revoked or not).
    package func deviceSecret(_ token: String, on database: DatabaseHandle) async throws -> DeviceSecret? {
        try await SessionStore(database).deviceSecret(digest: BearerSecret.digest(token))
    }
}
