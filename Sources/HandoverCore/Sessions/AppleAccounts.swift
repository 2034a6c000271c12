import AppleSignIn
import FluentKit
import Foundation
import HandoverSchema
import SQLKit

/// Sign in with Apple's side of the accounts: the single-use nonces, the account a verified
/// identity token signs in to (linked by Apple's subject, or by a verified address that signed
/// in by email link first), and Apple's server-to-server notifications, each processed once.
package enum AppleAccounts {
    /// Stores a nonce's digest, usable once until `expiresAt`.
    package static func storeNonce(_ nonce: String, expiresAt: Date, on database: any Database) async throws {
        let record = AppleNonce()
        record.nonceHash = IdentityTokenVerifier.sha256Hex(nonce)
        record.expiresAt = expiresAt
        try await record.create(on: database)
    }

    /// Consumes `nonce`: true when it was stored and had not expired; a replayed identity token
    /// carries a nonce already used, and finds nothing.
    package static func consumeNonce(_ nonce: String, now: Date, on database: any Database) async throws -> Bool {
        let sql = try ServerDatabases.sql(database)
        let consumed = try await sql.raw("""
            DELETE FROM apple_nonces WHERE nonce_hash = \(bind: IdentityTokenVerifier.sha256Hex(nonce))
            AND expires_at > \(bind: now) RETURNING id
            """).all()
        return !consumed.isEmpty
    }

    /// The account a verified identity token signs in to, saved with what the token says: the
    /// account of its subject; else, for a verified address, the account that address made by
    /// email link (one account); else a new one.
    ///
    /// - Parameters:
    ///   - displayName: the name the app sent, kept when the account has none.
    ///   - sealedRefreshToken: Apple's refresh token from the code exchange, sealed; nil when none came.
    package static func signIn(_ claims: AppleIdentityClaims, displayName: String?, sealedRefreshToken: String?, now: Date,
                               on database: any Database) async throws -> User {
        var existing = try await User.query(on: database).filter(\.$appleSubject == claims.subject).first()
        if existing == nil, let email = claims.email?.lowercased(), claims.emailVerified == true {
            existing = try await User.query(on: database).filter(\.$email == email).filter(\.$appleSubject == nil).first()
        }
        let user = existing ?? {
            let user = User()
            user.appleSubject = claims.subject
            user.emailForwardingDisabled = false
            user.createdAt = now
            return user
        }()
        user.appleSubject = claims.subject
        user.appleClientID = claims.audience
        if let email = claims.email {
            user.email = email.lowercased()
            user.emailVerified = claims.emailVerified
            user.isPrivateEmail = claims.isPrivateEmail
        }
        if user.fullName == nil, let displayName { user.fullName = displayName }
        if let sealedRefreshToken {
            user.appleRefreshToken = sealedRefreshToken
            user.appleValidatedAt = now
        }
        try await user.save(on: database)
        return user
    }

    /// Processes one of Apple's server-to-server notifications in a transaction: false when its
    /// `jti` was processed already (a duplicate). Consent revoked ends the account's sessions and
    /// forgets Apple's refresh token; an account deleted at Apple is deleted here; forwarding
    /// disabled or enabled is kept.
    package static func process(_ note: ServerNotification, now: Date, sessions: SessionAuthority, on database: any Database) async throws -> Bool {
        try await database.transaction { db in
            guard try await AppleNotificationRecord.query(on: db).filter(\.$jwtID == note.jwtID).first() == nil else { return false }
            let record = AppleNotificationRecord()
            record.jwtID = note.jwtID
            record.type = note.event.kind.rawValue
            record.subject = note.event.subject
            record.receivedAt = now
            try await record.create(on: db)
            guard let user = try await User.query(on: db).filter(\.$appleSubject == note.event.subject).first(), let userID = user.id else {
                return true
            }
            switch note.event.kind {
            case .consentRevoked:
                user.appleRefreshToken = nil
                try await user.save(on: db)
                try await sessions.revokeAll(userID: userID, reason: "consent_revoked", on: db)
            case .accountDelete:
                try await sessions.deleteAccount(userID: userID, reason: "account_deleted", on: db)
            case .emailDisabled, .emailEnabled:
                user.emailForwardingDisabled = note.event.kind == .emailDisabled
                if let email = note.event.email { user.email = email }
                if let isPrivate = note.event.isPrivateEmail { user.isPrivateEmail = isPrivate }
                try await user.save(on: db)
            case .other:
                break
            }
            return true
        }
    }
}
