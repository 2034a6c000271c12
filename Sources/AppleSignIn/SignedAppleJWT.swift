import Foundation

/// The checks every JWT Apple signs must pass, shared by identity tokens and server-to-server
/// notifications: RS256 only (decided from the header before any key is touched), a known `kid`,
/// a valid signature, `iss`, `aud` against the client ids, `exp` and `iat` within the leeway.
struct SignedAppleJWT {
    /// The claims every Apple JWT carries.
    struct RegisteredClaims: Decodable {
        var iss: String?
        var aud: AudienceList?
        var iat: NumericDate?
        var exp: NumericDate?
    }

    /// The verified payload bytes (JSON).
    let payload: Data
    /// The client id of `aud` that matched.
    let audience: String

    init(
        _ token: String, keySet: AppleKeySet, clientIDs: [String], leeway: TimeInterval, now: Date
    ) async throws(AppleJWTError) {
        let jws = try CompactJWS(token)
        let alg = jws.header.alg ?? "(none given)"
        guard alg == "RS256" else { throw .unsupportedAlgorithm(alg) }
        guard let kid = jws.header.kid, !kid.isEmpty else { throw .malformed("header has no kid") }
        let key = try await keySet.key(id: kid)
        guard key.isValidRS256Signature(jws.signature, for: jws.signingInput) else { throw .badSignature }

        let claims: RegisteredClaims
        do { claims = try JSONDecoder().decode(RegisteredClaims.self, from: jws.payload) } catch {
            throw .malformed("payload: \(Self.describe(error))")
        }
        guard let iss = claims.iss else { throw .malformed("payload has no iss") }
        guard iss == AppleID.issuer else { throw .issuerMismatch(found: iss) }
        let audiences = claims.aud?.values ?? []
        guard let audience = audiences.first(where: { clientIDs.contains($0) }) else {
            throw .audienceMismatch(found: audiences, expected: clientIDs)
        }
        guard let exp = claims.exp?.date else { throw .malformed("payload has no exp") }
        guard now <= exp.addingTimeInterval(leeway) else { throw .expired(at: exp) }
        guard let iat = claims.iat?.date else { throw .malformed("payload has no iat") }
        guard iat <= now.addingTimeInterval(leeway) else { throw .issuedInFuture(at: iat) }
        self.payload = jws.payload
        self.audience = audience
    }

    /// A short description of a decoding error naming the field.
    static func describe(_ error: any Error) -> String {
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
