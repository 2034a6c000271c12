import AppleSignIn
import AsyncHTTPClient
import Foundation
import JWTKit
import NIOCore
import NIOHTTP1

/// The organisation's OpenID Connect provider, as the dashboard's relying party sees it
/// (issue 39): its discovery document, its keys, the code exchange, and the checks every token
/// it signs must pass.
///
/// - The discovery document is fetched on first use and kept for an hour; its `issuer` must be
///   the configured one exactly (Discovery 1.0 §4.3).
/// - The key set (`jwks_uri`) is a ``RemoteKeySet``: kept for its `Cache-Control: max-age`, fetched
///   again for an unknown key id at most once a minute.
package actor OrganisationProvider {
    package nonisolated let settings: AdminSignInSettings
    private let http: HTTPClient
    private let now: @Sendable () -> Date
    /// How far a token's `iat` may be in the future, and `exp` in the past: clock skew.
    package static let leeway: TimeInterval = 60
    /// The oldest `iat` accepted on an ID token (the code was just exchanged).
    package static let maximumIDTokenAge: TimeInterval = 10 * 60
    /// The oldest `iat` accepted on a logout token.
    package static let maximumLogoutTokenAge: TimeInterval = 10 * 60

    private var metadata: (value: ProviderMetadata, expiresAt: Date)?
    /// The key set at the discovery document's `jwks_uri` (made again if that changes).
    private var keys: RemoteKeySet?

    package init(settings: AdminSignInSettings, http: HTTPClient, now: @escaping @Sendable () -> Date = { Date() }) {
        self.settings = settings
        self.http = http
        self.now = now
    }

    // MARK: Discovery and keys

    /// The discovery document, fetched when not held or older than an hour.
    package func discover() async throws(ProviderTokenRefusal) -> ProviderMetadata {
        if let metadata, now() < metadata.expiresAt { return metadata.value }
        let url = ProviderMetadata.discoveryURL(issuer: settings.issuer)
        let (status, _, body) = try await fetch(url)
        guard status == 200 else { throw .keysUnavailable("GET \(url) answered HTTP \(status)") }
        let value: ProviderMetadata
        do { value = try JSONDecoder().decode(ProviderMetadata.self, from: body) } catch {
            throw .keysUnavailable("\(url) is not an OpenID Connect discovery document (\(error))")
        }
        guard value.issuer == settings.issuer else {
            throw .keysUnavailable("the discovery document names the issuer '\(value.issuer)', not the configured '\(settings.issuer)'")
        }
        metadata = (value, now().addingTimeInterval(3600))
        return value
    }

    private func keySet() async throws(ProviderTokenRefusal) -> RemoteKeySet {
        let url = try await discover().jwksURI.absoluteString
        if let keys, keys.url == url { return keys }
        let fresh = RemoteKeySet(url: url, http: http, now: now)
        keys = fresh
        return fresh
    }

    private func fetch(_ url: String) async throws(ProviderTokenRefusal) -> (UInt, HTTPHeaders, Data) {
        do {
            var request = HTTPClientRequest(url: url)
            request.headers.add(name: "Accept", value: "application/json")
            let response = try await http.execute(request, timeout: .seconds(10))
            let body = try await response.body.collect(upTo: 1 << 20)
            return (response.status.code, response.headers, Data(body.readableBytesView))
        } catch let error as ProviderTokenRefusal {
            throw error
        } catch {
            throw .keysUnavailable("GET \(url) failed: \(error)")
        }
    }

    // MARK: The code exchange

    /// Exchanges an authorization code at the token endpoint (OpenID Connect Core §3.1.3.1), with
    /// HTTP Basic client authentication and the PKCE verifier (RFC 7636 §4.5). Returns the ID token.
    package func exchange(code: String, redirectURI: String, codeVerifier: String) async throws(ProviderTokenRefusal) -> String {
        let endpoint = try await discover().tokenEndpoint.absoluteString
        var request = HTTPClientRequest(url: endpoint)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        // RFC 6749 §2.3.1: the id and secret are form-encoded before they are joined for Basic.
        let credentials = FormEncoding.percentEncode(settings.clientID) + ":" + FormEncoding.percentEncode(settings.clientSecret)
        request.headers.add(name: "Authorization", value: "Basic " + Data(credentials.utf8).base64EncodedString())
        request.body = .bytes(ByteBuffer(string: FormEncoding.encode([
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI), ("code_verifier", codeVerifier),
        ])))
        struct TokenResponse: Decodable {
            var id_token: String?
            var error: String?
            var error_description: String?
        }
        let answer: TokenResponse
        let status: UInt
        do {
            let response = try await http.execute(request, timeout: .seconds(10))
            status = response.status.code
            answer = try JSONDecoder().decode(TokenResponse.self, from: Data(try await response.body.collect(upTo: 1 << 20).readableBytesView))
        } catch {
            throw .keysUnavailable("the token endpoint \(endpoint) failed: \(error)")
        }
        guard status == 200, let idToken = answer.id_token else {
            let reason = [answer.error, answer.error_description].compactMap { $0 }.joined(separator: ": ")
            throw .malformed("the token endpoint answered HTTP \(status) without an ID token\(reason.isEmpty ? "" : " (\(reason))")")
        }
        return idToken
    }

    // MARK: Checking tokens

    /// Checks an ID token as OpenID Connect Core 1.0 §3.1.3.7 says: signature by the provider's
    /// key, `iss` exactly, `aud` holding this client alone (or with an `azp` that is this
    /// client), `exp` in the future, `iat` recent, and the `nonce` this sign-in sent.
    package func verifyIDToken(_ token: String, nonce: String) async throws(ProviderTokenRefusal) -> ProviderClaims {
        let claims = try await verifiedClaims(token)
        try checkCommon(claims, maximumAge: Self.maximumIDTokenAge)
        guard claims.sub?.isEmpty == false else { throw .missingClaim("sub") }
        guard let presented = claims.nonce, presented.utf8.elementsEqual(nonce.utf8) else { throw .wrongNonce }
        return claims
    }

    /// Checks a logout token as Back-Channel Logout 1.0 §2.6 says: the same signature, `iss`,
    /// `aud`, `iat` and `exp` checks as an ID token; a `sub`, a `sid` or both; a `jti` (§2.4:
    /// REQUIRED; ``AdminSignIn/logout(token:sessions:on:)`` acts on each once); an `events` claim
    /// with the back-channel logout event; no `nonce`; and `typ`, when present, `logout+jwt`.
    package func verifyLogoutToken(_ token: String) async throws(ProviderTokenRefusal) -> ProviderClaims {
        if let typ = try Self.header(token).typ, typ.lowercased() != "logout+jwt", typ.lowercased() != "application/logout+jwt" {
            throw .notALogoutToken("its typ is '\(StrangerText.bounded(typ))', not logout+jwt")
        }
        let claims = try await verifiedClaims(token)
        try checkCommon(claims, maximumAge: Self.maximumLogoutTokenAge)
        guard claims.sub != nil || claims.sid != nil else { throw .missingClaim("sub or sid") }
        guard let jti = claims.jti, !jti.isEmpty, jti.utf8.count <= 256, !jti.containsControlCharacter else { throw .missingClaim("jti") }
        guard claims.events?.contains("http://schemas.openid.net/event/backchannel-logout") == true else {
            throw .notALogoutToken("its events claim lacks http://schemas.openid.net/event/backchannel-logout")
        }
        guard claims.nonce == nil else { throw .notALogoutToken("it carries a nonce, which §2.4 forbids") }
        return claims
    }

    private func checkCommon(_ claims: ProviderClaims, maximumAge: TimeInterval) throws(ProviderTokenRefusal) {
        let now = now()
        guard claims.iss == settings.issuer else { throw .wrongIssuer(found: claims.iss, expected: settings.issuer) }
        let audience = claims.aud ?? []
        guard audience.contains(settings.clientID) else { throw .wrongAudience(found: audience, expected: settings.clientID) }
        if let azp = claims.azp, azp != settings.clientID { throw .wrongAuthorizedParty(found: azp, expected: settings.clientID) }
        // More than one audience is trusted only when the token says this client is the party it
        // was issued to (§3.1.3.7 items 3 to 5).
        if audience.count > 1, claims.azp != settings.clientID { throw .wrongAudience(found: audience, expected: settings.clientID) }
        guard let exp = claims.exp, exp.addingTimeInterval(Self.leeway) > now else { throw .expired(claims.exp) }
        guard let iat = claims.iat, iat <= now.addingTimeInterval(Self.leeway), now.timeIntervalSince(iat) <= maximumAge else {
            throw .issuedAt(claims.iat)
        }
    }

    private static func header(_ token: String) throws(ProviderTokenRefusal) -> RemoteKeySet.Header {
        do { return try RemoteKeySet.header(token) } catch { throw Self.refusal(error) }
    }

    private func verifiedClaims(_ token: String) async throws(ProviderTokenRefusal) -> ProviderClaims {
        let keys = try await keySet()
        do { return try await keys.verify(token, as: ProviderClaims.self) } catch { throw Self.refusal(error) }
    }

    private static func refusal(_ error: RemoteKeySet.Refusal) -> ProviderTokenRefusal {
        switch error {
        case .malformed(let detail): .malformed(detail)
        case .algorithm(let alg): .algorithm(alg)
        case .unknownKey(let kid): .unknownKey(kid)
        case .badSignature: .badSignature
        case .keysUnavailable(let detail): .keysUnavailable(detail)
        }
    }

    // MARK: Sign-out

    /// Where to send the browser to end the provider's session too (RP-Initiated Logout 1.0
    /// §2), or nil when the provider publishes no `end_session_endpoint`.
    package func endSessionURL(idTokenHint: String?, postLogoutRedirectURI: String) async -> URL? {
        guard let endpoint = try? await discover().endSessionEndpoint,
              var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false) else { return nil }
        var items = components.queryItems ?? []
        if let idTokenHint { items.append(URLQueryItem(name: "id_token_hint", value: idTokenHint)) }
        items.append(URLQueryItem(name: "client_id", value: settings.clientID))
        items.append(URLQueryItem(name: "post_logout_redirect_uri", value: postLogoutRedirectURI))
        components.queryItems = items
        return components.url
    }
}
