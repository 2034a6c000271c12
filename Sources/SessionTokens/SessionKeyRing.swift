import Crypto
import Foundation
import NIOConcurrencyHelpers
import LinkCallbacks
import JWTKit

/// Signs and verifies access tokens with the server's rotating ES256 keys.
///
/// The newest key signs; every key still held verifies. Verification needs no database: it
/// checks the header against the ones this ring issues, the ES256 signature (jwt-kit), `iss` and
/// `exp`. A token verified once is remembered until it expires (``cacheLimit`` entries), so a
/// client that sends the same token on every request pays the signature check once.
///
/// ```swift
/// let ring = SessionKeyRing(issuer: "https://handover.example.com")
/// await ring.install(SessionSigningKey.generate(now: Date()))
/// let token = try await ring.sign(claims)
/// let verified = try await ring.verify(token, now: Date())
/// ```
public final class SessionKeyRing: Sendable {
    /// The `iss` this ring writes and requires.
    public let issuer: String
    /// How many verified tokens are remembered; 0 turns the cache off.
    public let cacheLimit: Int

    private struct State {
        var keys: [String: SessionSigningKey] = [:]
        /// Header segments already read, to the key id they name (jwt-kit may order the header's
        /// fields differently from one token to the next, so they are learned, not predicted).
        var headers: [Substring: String] = [:]
        var signingKeyID: String?
        var verified: [String: AccessTokenClaims] = [:]
    }

    private let collection = JWTKeyCollection()
    private let state = NIOLockedValueBox(State())

    public init(issuer: String, cacheLimit: Int = 10_000) {
        self.issuer = issuer
        self.cacheLimit = cacheLimit
    }

    /// Adds `key`. The newest key (by ``SessionSigningKey/createdAt``) becomes the signing key.
    public func install(_ key: SessionSigningKey) async throws {
        let kid = JWKIdentifier(string: key.keyID)
        await collection.add(ecdsa: try ES256PrivateKey(backing: key.privateKey), kid: kid)
        state.withLockedValue { state in
            state.keys[key.keyID] = key
            if let current = state.signingKeyID, let currentKey = state.keys[current], currentKey.createdAt >= key.createdAt {
                return
            }
            state.signingKeyID = key.keyID
        }
    }

    /// Drops every key not in `keyIDs` (retired keys); tokens they signed stop verifying.
    public func retain(only keyIDs: Set<String>) async {
        let dropped: [String] = state.withLockedValue { state in
            let dropped = state.keys.keys.filter { !keyIDs.contains($0) }
            for kid in dropped { state.keys[kid] = nil }
            state.headers = state.headers.filter { keyIDs.contains($0.value) }
            if let signing = state.signingKeyID, !keyIDs.contains(signing) {
                state.signingKeyID = state.keys.values.max { $0.createdAt < $1.createdAt }?.keyID
            }
            if !dropped.isEmpty { state.verified.removeAll() }
            return dropped
        }
        for kid in dropped { _ = await collection.remove(kid: JWKIdentifier(string: kid)) }
    }

    /// The ids of the keys held.
    public var keyIDs: Set<String> { state.withLockedValue { Set($0.keys.keys) } }

    /// The key that signs new tokens.
    public var signingKey: SessionSigningKey? { state.withLockedValue { state in state.signingKeyID.flatMap { state.keys[$0] } } }

    /// Makes the key `keyID` (one held) the one that signs; the server's key store uses it to let a
    /// new key be published before it signs. Does nothing for a key not held.
    public func sign(with keyID: String) {
        state.withLockedValue { state in
            if state.keys[keyID] != nil { state.signingKeyID = keyID }
        }
    }

    /// Every key held, oldest first: the public half of each is in the JWKS.
    public var publicKeys: JSONWebKeySet {
        let keys = state.withLockedValue { $0.keys.values.sorted { ($0.createdAt, $0.keyID) < ($1.createdAt, $1.keyID) } }
        return JSONWebKeySet(keys: keys.map(JSONWebKey.init))
    }

    /// Signs `claims` with the signing key.
    public func sign(_ claims: AccessTokenClaims) async throws -> String {
        try await signPayload(claims)
    }

    /// Signs a Back-Channel Logout token, with `typ: logout+jwt` in its header.
    public func sign(logoutToken claims: LogoutTokenClaims) async throws -> String {
        var header = JWTHeader()
        header.typ = LogoutTokenClaims.headerType
        return try await signPayload(claims, header: header)
    }

    /// Signs any claims as a compact JWS (RFC 7515 §7.1) with the signing key, ES256 (RFC 7518
    /// §3.4: the signature is R ‖ S) and the header `{"alg":"ES256","kid":…,"typ":type}`: a
    /// document the server vouches for (a hand-over's receipt), verifiable with the JWKS.
    ///
    /// Synchronous, unlike the tokens jwt-kit signs: a receipt is signed inside the transaction
    /// that ends its run, where every suspension keeps the one SQLite writer waiting.
    public func sign<Claims: Encodable>(document claims: Claims, type: String) throws -> String {
        guard let key = signingKey else { throw AccessTokenError.unknownKey("(no signing key installed)") }
        let header = try JSONSerialization.data(withJSONObject: ["alg": "ES256", "kid": key.keyID, "typ": type], options: [.sortedKeys])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let input = Base64URL.encode(header) + "." + Base64URL.encode(try encoder.encode(claims))
        let signature = try key.privateKey.signature(for: Data(input.utf8))
        return input + "." + Base64URL.encode(signature.rawRepresentation)
    }

    func signPayload(_ claims: some JWTPayload, header: JWTHeader = JWTHeader()) async throws -> String {
        guard let kid = state.withLockedValue({ $0.signingKeyID }) else { throw AccessTokenError.unknownKey("(no signing key installed)") }
        return try await collection.sign(claims, kid: JWKIdentifier(string: kid), header: header)
    }

    /// Verifies `token` and returns its claims.
    ///
    /// - Parameters:
    ///   - token: The compact JWT, as the client sent it.
    ///   - now: The server's clock.
    ///   - leeway: Seconds of clock skew tolerated on `exp`.
    /// - Throws: ``AccessTokenError``.
    public func verify(_ token: String, now: Date, leeway: TimeInterval = 0) async throws(AccessTokenError) -> AccessTokenClaims {
        if cacheLimit > 0, let claims = state.withLockedValue({ $0.verified[token] }) {
            try check(claims, now: now, leeway: leeway)
            return claims
        }
        let claims = try await verifyUncached(token)
        try check(claims, now: now, leeway: leeway)
        if cacheLimit > 0 {
            state.withLockedValue { state in
                if state.verified.count >= cacheLimit {
                    state.verified = state.verified.filter { $0.value.expiresAt.value > now }
                    if state.verified.count >= cacheLimit { state.verified.removeAll(keepingCapacity: true) }
                }
                state.verified[token] = claims
            }
        }
        return claims
    }

    /// The signature and header checks alone, with no cache and no time checks: what a request
    /// with a token never seen before costs (the benchmark measures this).
    public func verifyUncached(_ token: String) async throws(AccessTokenError) -> AccessTokenClaims {
        try await verifyPayload(token)
    }

    func verifyPayload<Payload: JWTPayload>(_ token: String) async throws(AccessTokenError) -> Payload {
        guard let dot = token.firstIndex(of: ".") else { throw .malformed("expected header.payload.signature") }
        let header = token[..<dot]
        if state.withLockedValue({ $0.headers[header] }) == nil {
            let kid = try Self.keyID(header: header)
            let known = state.withLockedValue { state in
                guard state.keys[kid] != nil else { return false }
                if state.headers.count < 256 { state.headers[header] = kid }
                return true
            }
            guard known else { throw .unknownKey(kid) }
        }
        do {
            return try await collection.verify(token, as: Payload.self)
        } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
            throw .badSignature
        } catch let error as JWTError where error.errorType == .unknownKID {
            throw .unknownKey(String(describing: error.kid ?? ""))
        } catch {
            throw .malformed("\(error)")
        }
    }

    private func check(_ claims: AccessTokenClaims, now: Date, leeway: TimeInterval) throws(AccessTokenError) {
        guard claims.tokenUse == "access" else { throw .malformed("token_use is '\(claims.tokenUse)', not 'access'") }
        guard claims.issuer.value == issuer else { throw .issuerMismatch(claims.issuer.value) }
        guard now.timeIntervalSince(claims.expiresAt.value) < leeway else { throw .expired(at: claims.expiresAt.value) }
    }

    /// The `kid` of an ES256 header, or why the header is not one this ring issues.
    private static func keyID(header: Substring) throws(AccessTokenError) -> String {
        struct Header: Decodable { var alg: String?; var kid: String? }
        guard let data = try? Base64URL.decode(String(header)), let decoded = try? JSONDecoder().decode(Header.self, from: data) else {
            throw .malformed("the header is not base64url JSON")
        }
        guard decoded.alg == "ES256" else { throw .malformed("alg is '\(decoded.alg ?? "missing")'; only ES256 is issued") }
        guard let kid = decoded.kid else { throw .malformed("the header has no kid") }
        return kid
    }
}
