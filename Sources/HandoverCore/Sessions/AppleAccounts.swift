import AppleSignIn
import Foundation
import HandoverSchema

/// Sign in with Apple's side of the accounts: the single-use nonces, the account a verified
/// identity token signs in to (linked by Apple's subject, or by a verified address that signed
/// in by email link first), and Apple's server-to-server notifications, each processed once.
/// The statements are ``SessionStore``'s.
package enum AppleAccounts {
    /// Stores a nonce's digest, usable once until `expiresAt`.
    package static func storeNonce(_ nonce: String, expiresAt: Date, on database: DatabaseHandle) async throws {
        let record = AppleNonce()
        record.nonceHash = IdentityTokenVerifier.sha256Hex(nonce)
        record.expiresAt = expiresAt
        try await SessionStore(database).insert(record)
    }

    /// Consumes `nonce`: true when it was stored and had not expired; a replayed identity token
    /// carries a nonce already used, and finds nothing.
    package static func consumeNonce(_ nonce: String, now: Date, on database: DatabaseHandle) async throws -> Bool {
        try await SessionStore(database).consumeNonce(digest: IdentityTokenVerifier.sha256Hex(nonce), now: now)
    }

    /// The account a verified identity token signs in to, saved with what the token says: the
    /// account of its subject; else, for a verified address, the account that address made by
    /// email link (one account); else a new one.
    ///
    /// - Parameters:
    ///   - displayName: the name the app sent, kept when the account has none.
    ///   - sealedRefreshToken: Apple's refresh token from the code exchange, sealed; nil when none came.
    package static func signIn(_ claims: AppleIdentityClaims, displayName: String?, sealedRefreshToken: String?, now: Date,
                               on database: DatabaseHandle) async throws -> User {
        let store = SessionStore(database)
        var existing = try await store.user(appleSubject: claims.subject)
        if existing == nil, let email = claims.email?.lowercased(), claims.emailVerified == true {
            existing = try await store.unlinkedUser(email: email)
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
        try await store.save(user)
        return user
    }

    /// Processes one of Apple's server-to-server notifications in a transaction: false when its
    /// `jti` was processed already (a duplicate). Consent revoked ends the account's sessions and
    /// forgets Apple's refresh token; an account deleted at Apple is deleted here; forwarding
    /// disabled or enabled is kept.
    package static func process(_ note: ServerNotification, now: Date, sessions: SessionAuthority, on database: DatabaseHandle) async throws -> Bool {
        try await database.inTransaction { db in
            let store = SessionStore(db)
            guard try await store.appleNotification(jwtID: note.jwtID) == nil else { return false }
            let record = AppleNotificationRecord()
            record.jwtID = note.jwtID
            record.type = note.event.kind.rawValue
            record.subject = note.event.subject
            record.receivedAt = now
            try await store.insert(record)
            guard let user = try await store.user(appleSubject: note.event.subject), let userID = user.id else {
                return true
            }
            switch note.event.kind {
            case .consentRevoked:
                user.appleRefreshToken = nil
                try await store.save(user)
                try await sessions.revokeAll(userID: userID, reason: "consent_revoked", on: db)
            case .accountDelete:
                try await sessions.deleteAccount(userID: userID, reason: "account_deleted", on: db)
            case .emailDisabled, .emailEnabled:
                user.emailForwardingDisabled = note.event.kind == .emailDisabled
                if let email = note.event.email { user.email = email }
                if let isPrivate = note.event.isPrivateEmail { user.isPrivateEmail = isPrivate }
                try await store.save(user)
            case .other:
                break
            }
            return true
        }
    }
}
