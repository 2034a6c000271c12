import FluentKit
import Foundation
import HandoverSchema
import LinkCallbacks
import SQLKit

/// Email-link sign-in's links as the database keeps them: a link is stored as its token's digest,
/// works once, and expires; using it up is one conditional `UPDATE`, so a link opened twice at
/// once signs in once.
package enum EmailSignInLinks {
    /// What a used link gives: the address it was sent to, and the fleet device that asked for it.
    package struct UsedLink: Sendable {
        package var email: String
        package var deviceID: UUID?
    }

    /// Stores a new link for `email` (normalised), usable once until `expiresAt`.
    ///
    /// - Parameters:
    ///   - deviceID: the fleet device of the app that asked, whose hand-over ends the session.
    ///   - team: the Apple team of the app that asked; only an app of that team may redeem it.
    package static func issue(_ token: String, email: String, deviceID: UUID?, team: String?, now: Date, expiresAt: Date,
                              on database: any Database) async throws {
        let record = EmailLoginToken()
        record.deviceID = deviceID
        record.clientTeam = team
        record.tokenHash = BearerSecret.digest(token)
        record.email = email
        record.createdAt = now
        record.expiresAt = expiresAt
        try await record.create(on: database)
    }

    /// Uses the link up: its address and device when it was stored, unused and unexpired; nil
    /// otherwise (and for a token no link can have).
    package static func consume(_ token: String, now: Date, on database: any Database) async throws -> UsedLink? {
        guard let sql = database as? any SQLDatabase, !token.isEmpty, token.count <= 256 else { return nil }
        let rows = try await sql.raw("""
            UPDATE email_login_tokens SET used_at = \(bind: now)
            WHERE token_hash = \(bind: BearerSecret.digest(token)) AND used_at IS NULL AND expires_at > \(bind: now) RETURNING email, device_id
            """).all()
        guard let row = rows.first else { return nil }
        return UsedLink(email: try row.decode(column: "email", as: String.self), deviceID: try row.decode(column: "device_id", as: UUID?.self))
    }

    /// The address a usable link (unused, unexpired) was sent to; nil for any other token.
    package static func usableLinkEmail(_ token: String, now: Date, on database: any Database) async throws -> String? {
        try await EmailLoginToken.query(on: database).filter(\.$tokenHash == BearerSecret.digest(token))
            .filter(\.$usedAt == nil).filter(\.$expiresAt > now).first()?.email
    }

    /// The Apple team a usable link was asked for by, when its app named itself; nil for a link
    /// that is unknown, used, expired or bound to no team.
    package static func team(ofLink token: String, now: Date, on database: any Database) async throws -> String? {
        guard let sql = database as? any SQLDatabase, !token.isEmpty, token.count <= 256 else { return nil }
        return try await sql.raw("""
            SELECT client_team FROM email_login_tokens WHERE token_hash = \(bind: BearerSecret.digest(token)) AND used_at IS NULL AND expires_at > \(bind: now)
            """).first()?.decode(column: "client_team", as: String?.self)
    }

    /// The account of `email` (normalised), made on its first link (its address verified by it).
    package static func user(for email: String, now: Date, on database: any Database) async throws -> User {
        if let user = try await User.query(on: database).filter(\.$email == email).first() { return user }
        let user = User()
        user.email = email
        user.emailVerified = true
        user.emailForwardingDisabled = false
        user.createdAt = now
        try await user.create(on: database)
        return user
    }
}
