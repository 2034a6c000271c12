import Foundation
import HandoverSchema
import LinkCallbacks

/// Email-link sign-in's links as the database keeps them: a link is stored as its token's digest,
/// works once, and expires; using it up is one conditional `UPDATE`, so a link opened twice at
/// once signs in once. The statements are ``SessionStore``'s.
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
                              on database: DatabaseHandle) async throws {
        let record = EmailLoginToken()
        record.deviceID = deviceID
        record.clientTeam = team
        record.tokenHash = BearerSecret.digest(token)
        record.email = email
        record.createdAt = now
        record.expiresAt = expiresAt
        try await SessionStore(database).insert(record)
    }

    /// Uses the link up: its address and device when it was stored, unused and unexpired; nil
    /// otherwise (and for a token no link can have).
    package static func consume(_ token: String, now: Date, on database: DatabaseHandle) async throws -> UsedLink? {
        guard !token.isEmpty, token.count <= 256 else { return nil }
        return try await SessionStore(database).useLink(digest: BearerSecret.digest(token), now: now)
    }

    /// The address a usable link (unused, unexpired) was sent to; nil for any other token.
    package static func usableLinkEmail(_ token: String, now: Date, on database: DatabaseHandle) async throws -> String? {
        try await SessionStore(database).usableLinkEmail(digest: BearerSecret.digest(token), now: now)
    }

    /// The Apple team a usable link was asked for by, when its app named itself; nil for a link
    /// that is unknown, used, expired or bound to no team.
    package static func team(ofLink token: String, now: Date, on database: DatabaseHandle) async throws -> String? {
        guard !token.isEmpty, token.count <= 256 else { return nil }
        return try await SessionStore(database).linkTeam(digest: BearerSecret.digest(token), now: now)
    }

    /// The account of `email` (normalised), made on its first link (its address verified by it).
    package static func user(for email: String, now: Date, on database: DatabaseHandle) async throws -> User {
        let store = SessionStore(database)
        if let user = try await store.user(email: email) { return user }
        let user = User()
        user.email = email
        user.emailVerified = true
        user.emailForwardingDisabled = false
        user.createdAt = now
        try await store.insert(user)
        return user
    }
}
