import Crypto
import Foundation
import SessionTokens

/// One access token as the server issues it, and the same bytes checked by a bare ES256 verify,
/// so the two can be compared in one run.
public struct SessionWorkload: Sendable {
    public let ring: SessionKeyRing
    public let token: String
    public let now: Date
    let publicKey: P256.Signing.PublicKey
    let signingInput: Data
    let signature: P256.Signing.ECDSASignature

    public static func make() async throws -> SessionWorkload {
        let now = Date()
        // No cache: every verification checks the signature (a token never seen before).
        let ring = SessionKeyRing(issuer: "https://handover.example.com", cacheLimit: 0)
        let key = SessionSigningKey.generate(now: now)
        try await ring.install(key)
        let claims = AccessTokenClaims(issuer: ring.issuer, userID: UUID().uuidString, sessionID: UUID().uuidString,
                                       email: "ward7@example.com", issuedAt: now, expiresAt: now.addingTimeInterval(300))
        let token = try await ring.sign(claims)
        let parts = token.split(separator: ".")
        var base64 = String(parts[2]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: Data(base64Encoded: base64)!)
        return SessionWorkload(ring: ring, token: token, now: now, publicKey: key.privateKey.publicKey,
                               signingInput: Data((parts[0] + "." + parts[1]).utf8), signature: signature)
    }

    /// Every check the server makes on a new token: header, ES256 signature, claims, `iss`, `exp`.
    public func verifyAccessToken() async throws -> String {
        try await ring.verify(token, now: now).sessionID
    }

    /// The floor: one ES256 signature check over the same bytes (SHA-256 + ECDSA P-256).
    public func verifyRawES256() -> Bool {
        publicKey.isValidSignature(signature, for: signingInput)
    }
}
