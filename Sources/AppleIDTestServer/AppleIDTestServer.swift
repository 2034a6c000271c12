import AppleSignIn
import AsyncHTTPClient
import Crypto
import CryptoExtras
import Foundation
import JWTKit
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// A local stand-in for `https://appleid.apple.com`, speaking Apple's Sign in with Apple protocol
/// on 127.0.0.1 and an ephemeral port. For tests only: the shipped server and CLI never link it.
///
/// - `GET /auth/keys`: the published RSA-2048 keys as a JWKS, with `Cache-Control: max-age`.
/// - `POST /auth/token`: code exchange and refresh-token validation, checking the ES256 client
///   secret against the keys registered with ``registerClient(clientID:teamID:keyID:)``.
///   Codes are single-use and live 5 minutes. A refresh token validated again within 24 hours is
///   answered `429 Too Many Requests` with `Retry-After` and Apple's error JSON
///   `{"error":"invalid_request", …}`: Apple documents the daily limit but not its answer, and a
///   429 keeps a throttle from ever being mistaken for `invalid_grant` (which means "sign the user
///   out").
/// - `POST /auth/revoke`: 200 for any token, known or not; a known refresh token is revoked.
///
/// Time comes from ``clock`` (a ``ManualClock``); tests advance it instead of sleeping.
/// Every request is recorded in ``requests``.
public final class AppleIDTestServer: Sendable {
    /// The port it listens on.
    public let port: Int
    /// The clock for codes, throttling, token times and client-secret checks.
    public let clock: ManualClock
    private let channel: any Channel
    private let group: MultiThreadedEventLoopGroup
    let state: NIOLockedValueBox<TestServerState>
    private let signer: JWTKeyCollection

    /// Starts the server with one published signing key.
    public static func start(clock: ManualClock = ManualClock()) async throws -> AppleIDTestServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let state = NIOLockedValueBox(TestServerState())
        let signer = JWTKeyCollection()
        let box = NIOLockedValueBox<AppleIDTestServer?>(nil)
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(TestServerHTTPHandler(server: box))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let server = AppleIDTestServer(channel: channel, group: group, state: state, signer: signer, clock: clock)
        box.withLockedValue { $0 = server }
        try await server.addSigningKey()
        return server
    }

    private init(channel: any Channel, group: MultiThreadedEventLoopGroup, state: NIOLockedValueBox<TestServerState>,
                 signer: JWTKeyCollection, clock: ManualClock) {
        self.channel = channel
        self.group = group
        self.state = state
        self.signer = signer
        self.clock = clock
        port = channel.localAddress?.port ?? 0
    }

    /// `http://127.0.0.1:<port>`: pass it as `baseURL` to the `AppleSignIn` clients.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Closes the socket and stops the event loop. Calling it again does nothing.
    public func shutdown() async throws {
        let first = state.withLockedValue { state in
            defer { state.isShutDown = true }
            return !state.isShutDown
        }
        guard first else { return }
        try await channel.close()
        try await group.shutdownGracefully()
    }

    // MARK: Signing keys

    /// Generates an RSA-2048 key with id `kid` (a fresh one by default), registers it for signing
    /// and, when `published`, adds it to the JWKS. Returns its key id.
    @discardableResult
    public func addSigningKey(kid: String? = nil, published: Bool = true) async throws -> String {
        let kid = kid ?? "key-" + UUID().uuidString.prefix(8).lowercased()
        let privateKey = try JWTKit.Insecure.RSA.PrivateKey(backing: _RSA.Signing.PrivateKey(keySize: .bits2048))
        await signer.add(rsa: privateKey, digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
        state.withLockedValue { $0.signingKeys.append(.init(kid: kid, privateKey: privateKey, published: published)) }
        return kid
    }

    /// Adds an existing key to the JWKS (a rotation: Apple starts publishing a key tokens already use).
    public func publishSigningKey(kid: String) {
        state.withLockedValue { state in
            for index in state.signingKeys.indices where state.signingKeys[index].kid == kid {
                state.signingKeys[index].published = true
            }
        }
    }

    /// Removes a key from the JWKS; the server can still sign with it (as a forger with an old key could).
    public func unpublishSigningKey(kid: String) {
        state.withLockedValue { state in
            for index in state.signingKeys.indices where state.signingKeys[index].kid == kid {
                state.signingKeys[index].published = false
            }
        }
    }

    /// Key ids in the JWKS, in the order they were added.
    public var publishedKeyIDs: [String] {
        state.withLockedValue { $0.signingKeys.filter(\.published).map(\.kid) }
    }

    /// The PEM of the public key `kid` (what an attacker has: it is public).
    public func publicKeyPEM(kid: String) -> String? {
        state.withLockedValue { $0.signingKeys.first { $0.kid == kid }?.privateKey.publicKey.pemRepresentation }
    }

    /// The `max-age` of `GET /auth/keys`'s `Cache-Control`; `nil` sends no `Cache-Control`.
    public func setKeysMaxAge(_ seconds: Int?) {
        state.withLockedValue { $0.keysMaxAge = seconds }
    }

    /// Makes `path` answer `override` instead of its normal behaviour; `nil` restores it.
    /// For example `.respond(status: 500, body: "")` on `/auth/keys` to fail key fetches, or
    /// `.hang` on `/auth/token` to time clients out.
    public func setOverride(_ path: String, _ override: PathOverride?) {
        state.withLockedValue { $0.overrides[path] = override }
    }

    // MARK: Tokens Apple signs

    /// Signs `claims` as Apple would: RS256 with key `kid` (the first published key by default).
    public func sign(claims: [String: JSONValue], kid: String? = nil) async throws -> String {
        let kid = kid ?? publishedKeyIDs.first ?? ""
        return try await signer.sign(ClaimsPayload(claims: claims), kid: JWKIdentifier(string: kid))
    }

    /// The claims of an identity token as Apple sends them, for `sub` and client id `aud`, issued
    /// now (by ``clock``) and living 10 minutes. `nonce` is the claim value (the SHA-256 hex of the
    /// raw nonce). `extra` adds or replaces claims (`nil` values remove one).
    public func identityTokenClaims(
        sub: String, aud: String, nonce: String? = nil, email: String? = nil,
        issuedAt: Date? = nil, lifetime: TimeInterval = 600, extra: [String: JSONValue?] = [:]
    ) -> [String: JSONValue] {
        let iat = issuedAt ?? clock.now
        var claims: [String: JSONValue] = [
            "iss": .string(AppleID.issuer), "aud": .string(aud), "sub": .string(sub),
            "iat": .date(iat), "exp": .date(iat.addingTimeInterval(lifetime)), "auth_time": .date(iat),
            "nonce_supported": true, "real_user_status": 2,
        ]
        if let nonce { claims["nonce"] = .string(nonce) }
        if let email {
            claims["email"] = .string(email)
            claims["email_verified"] = true
            claims["is_private_email"] = .bool(email.hasSuffix("@privaterelay.appleid.com"))
        }
        for (name, value) in extra { claims[name] = value }
        return claims
    }

    /// A signed identity token (see ``identityTokenClaims(sub:aud:nonce:email:issuedAt:lifetime:extra:)``).
    public func makeIdentityToken(
        sub: String, aud: String, nonce: String? = nil, email: String? = nil, issuedAt: Date? = nil,
        lifetime: TimeInterval = 600, extra: [String: JSONValue?] = [:], kid: String? = nil
    ) async throws -> String {
        try await sign(
            claims: identityTokenClaims(sub: sub, aud: aud, nonce: nonce, email: email, issuedAt: issuedAt,
                                        lifetime: lifetime, extra: extra),
            kid: kid
        )
    }

    /// A signed server-to-server notification JWT: `iss, aud, iat, exp, jti` and `events` (a JSON
    /// string holding one event object, `event_time` in milliseconds).
    public func makeNotificationJWT(
        type: String, sub: String, aud: String, jti: String = UUID().uuidString, eventTime: Date? = nil,
        email: String? = nil, isPrivateEmail: JSONValue? = nil, kid: String? = nil, extra: [String: JSONValue?] = [:]
    ) async throws -> String {
        let now = clock.now
        var event: [String: JSONValue] = [
            "type": .string(type), "sub": .string(sub),
            "event_time": .number(((eventTime ?? now).timeIntervalSince1970 * 1000).rounded()),
        ]
        if let email { event["email"] = .string(email) }
        if let isPrivateEmail { event["is_private_email"] = isPrivateEmail }
        var claims: [String: JSONValue] = [
            "iss": .string(AppleID.issuer), "aud": .string(aud), "iat": .date(now),
            "exp": .date(now.addingTimeInterval(600)), "jti": .string(jti),
            "events": .string(JSONValue.object(event).jsonText),
        ]
        for (name, value) in extra { claims[name] = value }
        return try await sign(claims: claims, kid: kid)
    }

    /// POSTs `{"payload":"<jwt>"}` to `url`, as Apple delivers notifications. Returns the status.
    public func postNotification(_ jwt: String, to url: URL, httpClient: HTTPClient = .shared) async throws -> Int {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: JSONValue.object(["payload": .string(jwt)]).jsonText))
        let response = try await httpClient.execute(request, timeout: .seconds(10))
        _ = try await response.body.collect(upTo: 1 << 20)
        return Int(response.status.code)
    }

    // MARK: Clients, codes and refresh tokens

    /// Registers a developer's client-secret key: returns the `.p8` PEM (PKCS#8 P-256) that the
    /// developer would download, whose public half verifies secrets with header `kid` = `keyID`.
    public func registerClient(clientID: String, teamID: String, keyID: String) throws -> String {
        let privateKey = P256.Signing.PrivateKey()
        let publicKey = try ES256PublicKey(pem: privateKey.publicKey.pemRepresentation)
        state.withLockedValue {
            $0.clientKeys[keyID] = .init(teamID: teamID, clientID: clientID, publicKey: publicKey)
        }
        return privateKey.pemRepresentation
    }

    /// Issues an authorization code (as the app would receive after the user signs in), valid 5
    /// minutes from now by ``clock`` and single-use. Pass `code` to choose its text.
    @discardableResult
    public func issueAuthorizationCode(
        _ code: String = "c" + UUID().uuidString.lowercased(), clientID: String, sub: String,
        redirectURI: String? = nil, email: String? = nil
    ) -> String {
        let now = clock.now
        state.withLockedValue {
            $0.codes[code] = .init(clientID: clientID, subject: sub, redirectURI: redirectURI, email: email,
                                   issuedAt: now, used: false)
        }
        return code
    }

    /// Revokes every refresh token of `sub`, as when the user stops using Sign in with Apple with
    /// the app in Settings. Returns how many were revoked.
    @discardableResult
    public func revokeGrants(subject sub: String) -> Int {
        state.withLockedValue { state in
            var count = 0
            for (token, grant) in state.refreshTokens where grant.subject == sub && !grant.revoked {
                state.refreshTokens[token]?.revoked = true
                count += 1
            }
            return count
        }
    }

    /// The refresh tokens issued to `sub` and whether each is revoked.
    public func refreshTokens(subject sub: String) -> [(token: String, revoked: Bool)] {
        state.withLockedValue { state in
            state.refreshTokens.filter { $0.value.subject == sub }.map { ($0.key, $0.value.revoked) }
        }
    }

    /// Whether `refreshToken` is known and revoked.
    public func isRevoked(refreshToken: String) -> Bool {
        state.withLockedValue { $0.refreshTokens[refreshToken]?.revoked ?? false }
    }

    // MARK: Recorded requests

    /// Requests received so far, in order.
    public var requests: [RecordedRequest] { state.withLockedValue { $0.requests } }

    /// Requests received so far on `path`.
    public func requests(to path: String) -> [RecordedRequest] { requests.filter { $0.path == path } }

    /// Forgets the recorded requests.
    public func clearRequests() { state.withLockedValue { $0.requests.removeAll() } }

    func signForResponse(claims: [String: JSONValue]) async throws -> String {
        try await sign(claims: claims)
    }

    func verifyClientSecretSignature(_ jwt: String, key: ES256PublicKey) async -> ClientSecretPayload? {
        let keys = await JWTKeyCollection().add(ecdsa: key)
        return try? await keys.verify(jwt, as: ClientSecretPayload.self)
    }
}

/// Claims of any shape, for jwt-kit to sign.
struct ClaimsPayload: JWTPayload {
    var claims: [String: JSONValue]

    init(claims: [String: JSONValue]) { self.claims = claims }
    init(from decoder: any Decoder) throws { claims = try [String: JSONValue](from: decoder) }
    func encode(to encoder: any Encoder) throws { try claims.encode(to: encoder) }
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// A client secret's claims as the server reads them; times are checked against the server's clock.
struct ClientSecretPayload: JWTPayload {
    var iss: String
    var iat: Double
    var exp: Double
    var aud: String
    var sub: String

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
