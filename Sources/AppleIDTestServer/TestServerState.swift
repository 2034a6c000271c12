import Crypto
import Foundation
import JWTKit

/// What the test server knows, guarded by one lock.
struct TestServerState {
    /// An RSA key the server can sign with; `published` keys appear in `GET /auth/keys`.
    struct SigningKey {
        var kid: String
        var privateKey: JWTKit.Insecure.RSA.PrivateKey
        var published: Bool
    }

    /// A developer's client-secret key, as registered in their Apple account.
    struct ClientKey {
        var teamID: String
        var clientID: String
        var publicKey: ES256PublicKey
    }

    struct AuthorizationCode {
        var clientID: String
        var subject: String
        var redirectURI: String?
        var email: String?
        var issuedAt: Date
        var used: Bool
    }

    struct RefreshToken {
        var clientID: String
        var subject: String
        var lastValidatedAt: Date?
        var revoked: Bool
    }

    var signingKeys: [SigningKey] = []
    var keysMaxAge: Int? = 86400
    var clientKeys: [String: ClientKey] = [:]
    var codes: [String: AuthorizationCode] = [:]
    var refreshTokens: [String: RefreshToken] = [:]
    var revokedAccessTokens: Set<String> = []
    var overrides: [String: PathOverride] = [:]
    var requests: [RecordedRequest] = []
    var isShutDown = false
}
