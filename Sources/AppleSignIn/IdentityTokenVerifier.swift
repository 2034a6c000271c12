import Crypto
import Foundation
import LinkCallbacks

/// Verifies the identity token an app receives from Sign in with Apple
/// (`ASAuthorizationAppleIDCredential.identityToken`) and returns its claims.
///
/// Checks, in order, each failing with its own ``AppleJWTError``:
/// 1. the header's `alg` is `RS256` (`none`, `HS256`, … are refused before any key is touched);
/// 2. the `kid` is in Apple's key set (see ``AppleKeySet`` for when it refetches);
/// 3. the RS256 signature;
/// 4. `iss` is `https://appleid.apple.com`;
/// 5. `aud` is one of ``clientIDs``;
/// 6. `exp` has not passed and `iat` is not in the future, each with ``leeway``;
/// 7. the `nonce` claim is the SHA-256 hex digest of the raw nonce the app presents.
///
/// ```swift
/// let verifier = IdentityTokenVerifier(clientIDs: ["com.example.app"], keySet: keySet)
/// let claims = try await verifier.verify(identityToken, rawNonce: nonceFromApp)
/// print(claims.subject)
/// ```
public struct IdentityTokenVerifier: Sendable {
    /// The accepted audiences: your app's bundle id and/or your Services ID.
    public let clientIDs: [String]
    /// Apple's keys.
    public let keySet: AppleKeySet
    /// Clock skew tolerated on `exp` and `iat`, 60 seconds by default.
    public let leeway: TimeInterval
    private let now: @Sendable () -> Date

    /// - Parameters:
    ///   - clientIDs: The client ids `aud` may name.
    ///   - keySet: Apple's key set, shared with other verifiers.
    ///   - leeway: Clock skew tolerated on `exp` and `iat`.
    ///   - now: The clock; tests pass a manual one.
    public init(
        clientIDs: [String], keySet: AppleKeySet, leeway: TimeInterval = 60,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.clientIDs = clientIDs
        self.keySet = keySet
        self.leeway = leeway
        self.now = now
    }

    /// Verifies `token` and returns its claims.
    ///
    /// - Parameters:
    ///   - token: The identity token (a compact JWT).
    ///   - rawNonce: The nonce the app generated before it hashed it into the authorization request.
    ///     When given, the token's `nonce` claim must equal its SHA-256 hex digest. Pass `nil` only
    ///     for flows that sent no nonce (then the `nonce` claim is not checked).
    /// - Throws: ``AppleJWTError``, naming the check that failed.
    public func verify(_ token: String, rawNonce: String?) async throws(AppleJWTError) -> AppleIdentityClaims {
        let jwt = try await SignedAppleJWT(token, as: IdentityTokenPayload.self, keySet: keySet, clientIDs: clientIDs,
                                           leeway: leeway, now: now())
        let payload = jwt.claims
        if let rawNonce {
            guard let nonce = payload.nonce, Self.constantTimeEqual(nonce.lowercased(), Self.sha256Hex(rawNonce)) else {
                throw .nonceMismatch
            }
        }
        return AppleIdentityClaims(
            subject: payload.sub, audience: jwt.audience, issuedAt: payload.iat.date, expiresAt: payload.exp.date,
            authenticatedAt: payload.auth_time?.date, nonce: payload.nonce, nonceSupported: payload.nonce_supported?.value,
            email: payload.email, emailVerified: payload.email_verified?.value,
            isPrivateEmail: payload.is_private_email?.value, realUserStatus: payload.real_user_status,
            transferSubject: payload.transfer_sub, codeHash: payload.c_hash, accessTokenHash: payload.at_hash
        )
    }

    /// The lowercase hex SHA-256 digest of `rawNonce`'s UTF-8 bytes: what the app puts in the
    /// authorization request (`request.nonce`) and what Apple echoes in the token.
    public static func sha256Hex(_ rawNonce: String) -> String {
        Hex.lowercase(SHA256.hash(data: Data(rawNonce.utf8)))
    }

    /// Whether two strings are equal, in time that does not depend on where they differ:
    /// swift-crypto compares digests in constant time.
    private static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        SHA256.hash(data: Data(a.utf8)) == SHA256.hash(data: Data(b.utf8))
    }
}
