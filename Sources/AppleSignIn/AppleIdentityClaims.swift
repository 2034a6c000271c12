import Foundation

/// The verified claims of an identity token. Only ``IdentityTokenVerifier`` creates them, after the
/// signature, issuer, audience, times and nonce checked out.
public struct AppleIdentityClaims: Sendable, Equatable {
    /// The user's stable, team-scoped identifier (`sub`). Key your accounts on this, not on email.
    public var subject: String
    /// The client id the token was issued to (the one of `aud` that matched your configuration).
    public var audience: String
    /// `iat`.
    public var issuedAt: Date
    /// `exp`.
    public var expiresAt: Date
    /// `auth_time`, when present.
    public var authenticatedAt: Date?
    /// `nonce`: the SHA-256 hex digest of the raw nonce the app sent, when there was one.
    public var nonce: String?
    /// `nonce_supported` (bool or "true"/"false").
    public var nonceSupported: Bool?
    /// `email`; absent after the first sign-in for some flows.
    public var email: String?
    /// `email_verified` (bool or "true"/"false").
    public var emailVerified: Bool?
    /// `is_private_email`: the address is an Apple relay address (bool or "true"/"false").
    public var isPrivateEmail: Bool?
    /// `real_user_status`.
    public var realUserStatus: RealUserStatus?
    /// `transfer_sub`: present while an app is being transferred between teams.
    public var transferSubject: String?
    /// `c_hash`, when present.
    public var codeHash: String?
    /// `at_hash`, when present.
    public var accessTokenHash: String?

    public init(
        subject: String, audience: String, issuedAt: Date, expiresAt: Date, authenticatedAt: Date? = nil,
        nonce: String? = nil, nonceSupported: Bool? = nil, email: String? = nil, emailVerified: Bool? = nil,
        isPrivateEmail: Bool? = nil, realUserStatus: RealUserStatus? = nil, transferSubject: String? = nil,
        codeHash: String? = nil, accessTokenHash: String? = nil
    ) {
        self.subject = subject
        self.audience = audience
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.authenticatedAt = authenticatedAt
        self.nonce = nonce
        self.nonceSupported = nonceSupported
        self.email = email
        self.emailVerified = emailVerified
        self.isPrivateEmail = isPrivateEmail
        self.realUserStatus = realUserStatus
        self.transferSubject = transferSubject
        self.codeHash = codeHash
        self.accessTokenHash = accessTokenHash
    }
}

/// The identity token payload as sent, decoded tolerantly.
struct IdentityTokenPayload: AppleRegisteredClaims {
    var iss: String
    var aud: AudienceList
    var sub: String
    var iat: NumericDate
    var exp: NumericDate
    var auth_time: NumericDate?
    var nonce: String?
    var nonce_supported: LenientBool?
    var email: String?
    var email_verified: LenientBool?
    var is_private_email: LenientBool?
    var real_user_status: RealUserStatus?
    var transfer_sub: String?
    var c_hash: String?
    var at_hash: String?
}
