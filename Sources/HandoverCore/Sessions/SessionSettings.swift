import Foundation

/// Sign in with Apple, as this server uses it: where Apple is, which client ids may sign in, and
/// the key that signs the client secret.
///
/// Set with `HANDOVER_APPLE_CLIENT_IDS`, `HANDOVER_APPLE_TEAM_ID`, `HANDOVER_APPLE_KEY_ID`,
/// `HANDOVER_APPLE_PRIVATE_KEY_FILE` and optionally `HANDOVER_APPLE_BASE_URL` (or the matching
/// `handover serve` flags). Without client ids, `/auth/apple` answers 404 `not_configured`.
public struct SignInWithAppleConfiguration: Sendable {
    /// Apple's origin; a local server in tests and staging.
    public var baseURL: URL = URL(string: "https://appleid.apple.com")!
    /// The bundle ids and Services IDs whose identity tokens are accepted (`aud`).
    public var clientIDs: [String]
    /// Your Apple developer team id.
    public var teamID: String
    /// The 10-character id of the Sign in with Apple key.
    public var keyID: String
    /// The `.p8` key's PEM text.
    public var privateKeyPEM: String

    public init(clientIDs: [String], teamID: String, keyID: String, privateKeyPEM: String, baseURL: URL? = nil) {
        self.clientIDs = clientIDs
        self.teamID = teamID
        self.keyID = keyID
        self.privateKeyPEM = privateKeyPEM
        if let baseURL { self.baseURL = baseURL }
    }
}

/// The server's own sessions: how long access tokens live and how revocation reaches them.
public struct SessionSettings: Sendable {
    /// Access-token lifetime in seconds (`HANDOVER_SESSION_TTL`), 300 by default. A revoked
    /// session's access tokens stop working on every instance within this time.
    public var accessTokenLifetime: TimeInterval = 300
    /// Refresh-token lifetime: a session unused this long ends. 30 days.
    public var refreshTokenLifetime: TimeInterval = 30 * 86_400
    /// Strict sessions (`--strict-sessions`, `HANDOVER_STRICT_SESSIONS=1`): every authenticated
    /// request also reads its session's row, so a revocation takes effect at once on every
    /// instance, at the price of one indexed read per request.
    public var strict: Bool = false
    /// How often the access-token signing key is replaced. One day.
    public var keyRotationInterval: TimeInterval = 86_400
    /// How long a new signing key is in the JWKS before it signs, and so how long a backend may
    /// cache the JWKS (`Cache-Control: max-age`): a quarter of the rotation, at most an hour.
    public var keyPublicationLead: TimeInterval { min(3600, keyRotationInterval / 4) }
    /// How often Apple's refresh token is checked on refresh: at most once a day (Apple throttles more).
    public var appleValidationInterval: TimeInterval = 86_400
    /// The AES-256-GCM key for secrets at rest, base64 (`HANDOVER_TOKEN_ENCRYPTION_KEY`). When
    /// `nil`, one is generated into the data directory on first start (`token-encryption.key`);
    /// several instances must share one, so set it when you run more than one.
    public var encryptionKeyBase64: String?
    /// How many devices one person may hold at once (`HANDOVER_CUSTODY_LIMIT`, `--custody-limit`):
    /// a sign-in on one more is refused, naming the device they still hold. 1 by default; 0
    /// means no limit.
    public var custodyLimit: Int = 1

    public init() {}
}
