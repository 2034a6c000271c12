import Foundation
import SQLKit

/// The tokens of other parties this server has acted on, by issuer and `jti`, kept until they
/// expire (and a minute of clock skew): a token presented again is refused, on every instance
/// and after a restart, since the record is a row.
///
/// - Back-Channel Logout 1.0 §2.6: "the RP MAY verify that … the same jti value has not been
///   recently received"; a logout token replayed after its person signed back in would otherwise
///   end the new session.
/// - Global Token Revocation bearers (draft-parecki-oauth-global-token-revocation §6.1): one
///   bearer, one revocation.
///
/// Claiming is one statement, an insert that does nothing when the pair is there (a unique
/// index), so two instances given the same token at once act on it once.
package enum TokenReplayCache {
    /// What kind of token a row remembers (for the reader of the table).
    package enum Kind: String, Sendable {
        case logoutToken = "logout_token"
        case globalTokenRevocation = "global_token_revocation"
    }

    /// The clock skew allowed past a token's `exp`.
    package static let skew: TimeInterval = 60

    /// Records `jti` of `issuer` until `expiresAt` (plus ``skew``); returns false when it was
    /// recorded already (a replay).
    package static func claim(_ kind: Kind, issuer: String, jti: String, expiresAt: Date, on sql: any SQLDatabase, now: Date) async throws -> Bool {
        try await sql.raw("""
            INSERT INTO token_replays (issuer, jti, kind, expires_at, used_at)
            VALUES (\(bind: issuer), \(bind: jti), \(bind: kind.rawValue), \(bind: expiresAt.addingTimeInterval(skew)), \(bind: now))
            ON CONFLICT DO NOTHING RETURNING jti
            """).first() != nil
    }

    /// Forgets a claim (the action it guarded failed, and the sender may retry with the same token).
    package static func release(issuer: String, jti: String, on sql: any SQLDatabase) async throws {
        try await sql.raw("DELETE FROM token_replays WHERE issuer = \(bind: issuer) AND jti = \(bind: jti)").run()
    }

    /// Forgets the tokens expired (past their skew): they would be refused as expired anyway.
    @discardableResult
    package static func prune(on sql: any SQLDatabase, now: Date) async throws -> Int {
        try await sql.raw("DELETE FROM token_replays WHERE expires_at < \(bind: now) RETURNING jti").all().count
    }
}
