import Vapor

/// `POST /auth/apple`: what the app got from `ASAuthorizationAppleIDCredential`.
struct AppleSignInInput: Content {
    struct FullName: Content {
        var givenName: String?
        var familyName: String?
    }

    /// The identity token (a JWT), as UTF-8 text.
    var identityToken: String
    /// The single-use authorization code, as UTF-8 text.
    var authorizationCode: String
    /// The raw nonce from `POST /auth/apple/nonce`; the app put its SHA-256 in the request to Apple.
    var nonce: String
    /// Apple sends the name only at the first sign-in.
    var fullName: FullName?
    /// Space-separated; `device_sso` also returns a device secret and an ID token (Native SSO).
    var scope: String?
    /// The registered fleet device this phone is, so its logout run signs the user out.
    var deviceID: UUID?

    func check() throws {
        guard !identityToken.isEmpty, identityToken.count <= 8192 else {
            throw APIError.invalid("identityToken", "must be the identity token Apple returned (a JWT, at most 8192 characters).")
        }
        guard !authorizationCode.isEmpty, authorizationCode.count <= 1024 else {
            throw APIError.invalid("authorizationCode", "must be the authorization code Apple returned (1 to 1024 characters).")
        }
        guard (16...256).contains(nonce.count) else {
            throw APIError.invalid("nonce", "must be the nonce from POST /auth/apple/nonce (16 to 256 characters).")
        }
        for (field, value) in [("fullName.givenName", fullName?.givenName), ("fullName.familyName", fullName?.familyName)] {
            if let value, value.count > 200 || value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                throw APIError.invalid(field, "must be at most 200 characters with no control characters.")
            }
        }
    }

    /// The name to keep, when one was sent.
    var displayName: String? {
        let parts = [fullName?.givenName, fullName?.familyName].compactMap { $0?.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }
}

/// `POST /auth/refresh`.
struct RefreshInput: Content {
    var refreshToken: String
}

/// `POST /auth/apple/nonce` answers this.
struct NonceOutput: Content {
    var nonce: String
    var expiresIn: Int
}

/// `POST /auth/apple/notifications` answers this: whether the event was applied now or earlier.
struct NotificationOutput: Content {
    /// `processed`, or `duplicate` when this `jti` was already handled.
    var status: String
    var event: String
}

/// `GET /api/v1/me`.
struct MeOutput: Content {
    var id: UUID
    var email: String?
}
