/// Apple's answer to a successful authorization-code exchange.
public struct AppleTokenResponse: Sendable, Equatable, Decodable {
    /// An access token; Apple offers no API that accepts it, so most servers drop it.
    public var accessToken: String
    /// `Bearer`.
    public var tokenType: String
    /// Seconds the access token lives (3600).
    public var expiresIn: Int
    /// The refresh token. Store it (encrypted) with the account: it is what you validate daily and
    /// what you revoke when the user deletes their account.
    public var refreshToken: String?
    /// An identity token for the user, to verify with ``IdentityTokenVerifier`` (no nonce).
    public var idToken: String?

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token", tokenType = "token_type", expiresIn = "expires_in"
        case refreshToken = "refresh_token", idToken = "id_token"
    }

    public init(accessToken: String, tokenType: String, expiresIn: Int, refreshToken: String?, idToken: String?) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.refreshToken = refreshToken
        self.idToken = idToken
    }
}

/// Apple's answer to a successful refresh-token validation: a new access token. Receiving it is the
/// proof that the user's grant still stands.
public struct AppleRefreshResponse: Sendable, Equatable, Decodable {
    public var accessToken: String
    public var tokenType: String
    public var expiresIn: Int

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token", tokenType = "token_type", expiresIn = "expires_in"
    }

    public init(accessToken: String, tokenType: String, expiresIn: Int) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
    }
}

/// What a token given to ``AppleTokenClient/revoke(_:hint:)`` is.
public enum AppleTokenTypeHint: String, Sendable {
    case refreshToken = "refresh_token"
    case accessToken = "access_token"
}
