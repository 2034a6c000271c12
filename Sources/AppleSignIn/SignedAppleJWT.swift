import Foundation
import JWTKit
import LinkCallbacks
import NIOConcurrencyHelpers

/// The checks every JWT Apple signs must pass, shared by identity tokens and server-to-server
/// notifications: RS256 only (decided from the header before any key is touched), a known `kid`,
/// a valid signature, `iss`, `aud` against the client ids, `exp` and `iat` within the leeway.
/// jwt-kit parses the token and checks the signature; the claim checks are here, each with its
/// own ``AppleJWTError``.
struct SignedAppleJWT<Claims: AppleRegisteredClaims> {
    /// The verified claims, decoded once.
    let claims: Claims
    /// The client id of `aud` that matched.
    let audience: String

    init(
        _ token: String, as: Claims.Type, keySet: AppleKeySet, clientIDs: [String], leeway: TimeInterval, now: Date
    ) async throws(AppleJWTError) {
        let header = try Self.header(of: token)
        let alg = header.alg ?? "(none given)"
        guard alg == "RS256" else { throw .unsupportedAlgorithm(alg) }
        guard let kid = header.kid, !kid.isEmpty else { throw .malformed("header has no kid") }
        let key: AppleSigningKey
        if let cached = keySet.cachedKey(id: kid) { key = cached } else { key = try await keySet.key(id: kid) }
        let claims = try await key.verify(token, as: Claims.self)
        let iss = claims.iss
        guard iss == AppleID.issuer else { throw .issuerMismatch(found: iss) }
        let audiences = claims.aud.values
        guard let audience = audiences.first(where: { clientIDs.contains($0) }) else {
            throw .audienceMismatch(found: audiences, expected: clientIDs)
        }
        let exp = claims.exp.date
        guard now <= exp.addingTimeInterval(leeway) else { throw .expired(at: exp) }
        let iat = claims.iat.date
        guard iat <= now.addingTimeInterval(leeway) else { throw .issuedInFuture(at: iat) }
        self.claims = claims
        self.audience = audience
    }

    /// The token's protected header, read before any key is touched (for `alg` and `kid`). Apple
    /// signs with a handful of keys, so the same few header segments come back on every token:
    /// they are decoded once and remembered (at most 64, each at most 512 bytes).
    static func header(of token: String) throws(AppleJWTError) -> JWTHeader {
        // Bytes, not Characters: a token is ASCII, and walking its graphemes costs more than the rest.
        let utf8 = token.utf8
        let dots = utf8.reduce(0) { $1 == UInt8(ascii: ".") ? $0 + 1 : $0 }
        guard dots == 2, let firstDot = utf8.firstIndex(of: UInt8(ascii: ".")) else {
            throw .malformed("expected 3 dot-separated parts, found \(dots + 1)")
        }
        let segment = Substring(utf8[..<firstDot])
        if let known = KnownHeaders.shared.withLockedValue({ $0[segment] }) { return known }
        guard let bytes = try? Base64URL.decode(String(segment), parameter: "header"),
              let header = try? JSONDecoder().decode(JWTHeader.self, from: bytes) else {
            throw .malformed("header is not a base64url JSON object")
        }
        if segment.utf8.count <= 512 {
            KnownHeaders.shared.withLockedValue { known in
                if known.count >= 64 { known.removeAll() }
                known[Substring(String(segment))] = header  // a copy: the key keeps the header, not the token
            }
        }
        return header
    }

    /// A short description of a decoding error naming the field.
    static func describe(_ error: any Error) -> String {
        if let error = error as? JWTError, let reason = error.reason {
            // jwt-kit keeps a payload's decoding error only as text: name a missing claim from it.
            if let match = reason.firstMatch(of: /keyNotFound: Key '([^']+)' not found/) { return "missing \(match.1)" }
            return reason
        }
        guard let error = error as? DecodingError else { return "\(error)" }
        switch error {
        case .keyNotFound(let key, _): return "missing \(key.stringValue)"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}

/// The registered claims every JWT Apple signs carries; payload types decode them with the rest,
/// so a payload is decoded once.
protocol AppleRegisteredClaims: JWTPayload {
    var iss: String { get }
    var aud: AudienceList { get }
    var iat: NumericDate { get }
    var exp: NumericDate { get }
}

extension AppleRegisteredClaims {
    /// jwt-kit's own claim checks: none; ``SignedAppleJWT`` checks each claim with its own error.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// The header segments already decoded, shared by every ``SignedAppleJWT``.
private enum KnownHeaders {
    static let shared = NIOLockedValueBox<[Substring: JWTHeader]>([:])
}
