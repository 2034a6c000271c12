import AppleSignIn
import AsyncHTTPClient
import Crypto
import CryptoExtras
import Foundation
import JWTKit

/// One RSA-2048 key published as a JWKS, and one identity token signed with it, verified two ways:
/// with `AppleSignIn`'s `IdentityTokenVerifier` (key cached in `AppleKeySet`) and with jwt-kit's
/// `JWTKeyCollection` + `AppleIdentityToken` (the path vapor/jwt's `req.jwt.apple.verify` takes
/// once Apple's JWKS is cached). Nothing touches the network.
public struct AppleWorkload: Sendable {
    public static let clientID = "com.example.bench"
    public let token: String
    public let jwks: String
    public let verifier: IdentityTokenVerifier
    public let collection: JWTKeyCollection

    public static func make() async throws -> AppleWorkload {
        let privateKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let primitives = try privateKey.publicKey.getKeyPrimitives()
        let (n, e) = (primitives.modulus, primitives.publicExponent)
        let kid = "bench-key"
        let jwks = #"{"keys":[{"kty":"RSA","kid":"\#(kid)","use":"sig","alg":"RS256","n":"\#(b64url(n))","e":"\#(b64url(e))"}]}"#
        let now = Int(Date().timeIntervalSince1970)
        let header = b64url(Data(#"{"alg":"RS256","kid":"\#(kid)"}"#.utf8))
        let payload = b64url(Data(#"{"iss":"https://appleid.apple.com","aud":"\#(clientID)","sub":"001234.bench","iat":\#(now),"exp":\#(now + 86400),"email":"a@privaterelay.appleid.com","email_verified":"true","is_private_email":"true","real_user_status":2,"nonce_supported":true}"#.utf8))
        let signature = try privateKey.signature(for: SHA256.hash(data: Data("\(header).\(payload)".utf8)), padding: .insecurePKCS1v1_5)
        let token = "\(header).\(payload).\(b64url(signature.rawRepresentation))"

        let keySet = AppleKeySet(httpClient: HTTPClient.shared)
        try await keySet.install(jwks: Data(jwks.utf8))
        let verifier = IdentityTokenVerifier(clientIDs: [clientID], keySet: keySet)
        let collection = try await JWTKeyCollection().add(jwksJSON: jwks)
        return AppleWorkload(token: token, jwks: jwks, verifier: verifier, collection: collection)
    }

    /// Our path: every check, key from the cache.
    public func verifyWithAppleSignIn() async throws -> String {
        try await verifier.verify(token, rawNonce: nil).subject
    }

    /// jwt-kit's Apple path as vapor/jwt runs it: verify against the cached JWKS collection, then
    /// check the audience (`req.jwt.apple.verify(applicationIdentifier:)`).
    public func verifyWithJWTKit() async throws -> String {
        let claims = try await collection.verify(token, as: AppleIdentityToken.self)
        guard claims.audience.value.contains(Self.clientID) else { throw BenchError.audience }
        return claims.subject.value
    }

    enum BenchError: Error { case audience }
}

func b64url(_ data: some DataProtocol) -> String {
    Data(data).base64EncodedString().replacingOccurrences(of: "+", with: "-")
        .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
}
