import AppleSignIn
import Foundation
import LinkCallbacks
import JWTKit

/// An HTTP answer of the test server; `nil` where the server must not answer at all.
struct TestServerResponse: Sendable {
    var status: Int
    var headers: [(String, String)] = [("Content-Type", "application/json;charset=UTF-8")]
    var body: String

    static func json(_ status: Int, _ value: JSONValue, headers: [(String, String)] = []) -> Self {
        .init(status: status,
              headers: [("Content-Type", "application/json;charset=UTF-8"), ("Cache-Control", "no-store"), ("Pragma", "no-cache")] + headers,
              body: value.jsonText)
    }

    /// Apple's OAuth error body.
    static func error(_ code: String, _ description: String? = nil, status: Int = 400, headers: [(String, String)] = []) -> Self {
        var body: [String: JSONValue] = ["error": .string(code)]
        if let description { body["error_description"] = .string(description) }
        return .json(status, .object(body), headers: headers)
    }
}

extension AppleIDTestServer {
    /// Seconds an authorization code lives.
    static let codeLifetime: TimeInterval = 300
    /// The least time between two validations of one refresh token.
    static let refreshValidationInterval: TimeInterval = 86400

    /// Answers one request the way Apple does.
    func respond(to request: RecordedRequest) async -> TestServerResponse? {
        state.withLockedValue { $0.requests.append(request) }
        switch state.withLockedValue({ $0.overrides[request.path] }) {
        case .hang: return nil
        case .respond(let status, let body): return .init(status: status, body: body)
        case nil: break
        }
        switch (request.method, request.path) {
        case ("GET", "/auth/keys"): return keySet()
        case ("POST", "/auth/token"): return await token(request.form)
        case ("POST", "/auth/revoke"): return await revoke(request.form)
        default: return .init(status: 404, headers: [("Content-Type", "text/plain")], body: "not found\n")
        }
    }

    private func keySet() -> TestServerResponse {
        let (keys, maxAge) = state.withLockedValue { ($0.signingKeys.filter(\.published), $0.keysMaxAge) }
        let jwks: [JSONValue] = keys.compactMap { key in
            guard let (n, e) = try? key.privateKey.publicKey.getKeyPrimitives() else { return nil }
            return .object([
                "kty": "RSA", "kid": .string(key.kid), "use": "sig", "alg": "RS256",
                "n": .string(Base64URL.encode(n)), "e": .string(Base64URL.encode(e)),
            ])
        }
        var headers = [("Content-Type", "application/json;charset=UTF-8")]
        if let maxAge { headers.append(("Cache-Control", "max-age=\(maxAge)")) }
        return .init(status: 200, headers: headers, body: JSONValue.object(["keys": .array(jwks)]).jsonText)
    }

    /// Checks `client_id` and `client_secret`; returns an error response, or nil when they are good.
    private func authenticateClient(_ form: [String: String]) async -> TestServerResponse? {
        guard let clientID = form["client_id"], let secret = form["client_secret"] else {
            return .error("invalid_request", "client_id and client_secret are required")
        }
        let segments = secret.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3,
              let headerData = Data(base64Encoded: Self.padded(segments[0])),
              let header = try? JSONDecoder().decode(SecretHeader.self, from: headerData),
              header.alg == "ES256", let kid = header.kid,
              let client = state.withLockedValue({ $0.clientKeys[kid] })
        else { return .error("invalid_client") }
        guard let claims = await verifyClientSecretSignature(secret, key: client.publicKey) else {
            return .error("invalid_client")
        }
        let now = clock.now.timeIntervalSince1970
        guard claims.iss == client.teamID, claims.sub == clientID, client.clientID == clientID,
              claims.aud == AppleID.issuer, claims.iat <= now + 60, claims.exp > now,
              claims.exp - claims.iat <= 15_777_000
        else { return .error("invalid_client") }
        return nil
    }

    private func token(_ form: [String: String]) async -> TestServerResponse {
        if let failure = await authenticateClient(form) { return failure }
        let clientID = form["client_id"] ?? ""
        switch form["grant_type"] {
        case "authorization_code": return await exchange(form, clientID: clientID)
        case "refresh_token": return refresh(form, clientID: clientID)
        case nil: return .error("invalid_request", "grant_type is required")
        default: return .error("unsupported_grant_type")
        }
    }

    private func exchange(_ form: [String: String], clientID: String) async -> TestServerResponse {
        guard let code = form["code"] else { return .error("invalid_request", "code is required") }
        let now = clock.now
        let outcome: (grant: TestServerState.AuthorizationCode?, refusal: TestServerResponse?) = state.withLockedValue { state in
            guard var grant = state.codes[code], !grant.used, grant.clientID == clientID,
                  now.timeIntervalSince(grant.issuedAt) <= Self.codeLifetime
            else { return (nil, .error("invalid_grant", "The code has expired or has been revoked.")) }
            guard grant.redirectURI == form["redirect_uri"] else {
                return (nil, .error("invalid_grant", "redirect_uri does not match"))
            }
            grant.used = true
            state.codes[code] = grant
            return (grant, nil)
        }
        guard let grant = outcome.grant else { return outcome.refusal ?? .error("invalid_grant") }
        let refreshToken = "r" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        state.withLockedValue {
            $0.refreshTokens[refreshToken] = .init(clientID: clientID, subject: grant.subject, lastValidatedAt: nil, revoked: false)
        }
        let idToken: String
        do {
            idToken = try await signForResponse(claims: identityTokenClaims(sub: grant.subject, aud: clientID, email: grant.email))
        } catch {
            return .error("invalid_request", "server could not sign: \(error)", status: 500)
        }
        return .json(200, .object([
            "access_token": .string("a" + UUID().uuidString.lowercased()), "token_type": "Bearer", "expires_in": 3600,
            "refresh_token": .string(refreshToken), "id_token": .string(idToken),
        ]))
    }

    private func refresh(_ form: [String: String], clientID: String) -> TestServerResponse {
        guard let token = form["refresh_token"] else { return .error("invalid_request", "refresh_token is required") }
        let now = clock.now
        return state.withLockedValue { state in
            guard var grant = state.refreshTokens[token], !grant.revoked, grant.clientID == clientID else {
                return .error("invalid_grant")
            }
            if let last = grant.lastValidatedAt, now.timeIntervalSince(last) < Self.refreshValidationInterval {
                let retryAfter = Int((Self.refreshValidationInterval - now.timeIntervalSince(last)).rounded(.up))
                return .error("invalid_request", "This refresh token was validated less than a day ago.",
                              status: 429, headers: [("Retry-After", String(retryAfter))])
            }
            grant.lastValidatedAt = now
            state.refreshTokens[token] = grant
            return .json(200, .object([
                "access_token": .string("a" + UUID().uuidString.lowercased()), "token_type": "Bearer", "expires_in": 3600,
            ]))
        }
    }

    private func revoke(_ form: [String: String]) async -> TestServerResponse {
        if let failure = await authenticateClient(form) { return failure }
        guard let token = form["token"] else { return .error("invalid_request", "token is required") }
        let clientID = form["client_id"] ?? ""
        state.withLockedValue { state in
            if var grant = state.refreshTokens[token], grant.clientID == clientID {
                grant.revoked = true
                state.refreshTokens[token] = grant
            } else {
                state.revokedAccessTokens.insert(token)
            }
        }
        return .init(status: 200, headers: [("Content-Type", "text/plain")], body: "")
    }

    private static func padded(_ segment: Substring) -> String {
        var text = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        return text
    }
}

private struct SecretHeader: Decodable {
    var alg: String?
    var kid: String?
}
