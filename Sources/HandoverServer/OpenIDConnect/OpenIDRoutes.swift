import Foundation
import HandoverCore
import SessionTokens
import Vapor

/// `GET /.well-known/openid-configuration` and the JWKS it names.
///
/// Both need an issuer that is a URL: the configured public URL (`--public-url`,
/// `HANDOVER_PUBLIC_URL`). Without one, tokens carry `iss: handover` and both answer 404
/// `not_configured`, saying so.
struct OpenIDRoutes: RouteCollection {
    static let discoveryPath = "/.well-known/openid-configuration"
    static let jwksPath = "/oauth/jwks"

    let sessions: SessionAuthority

    func boot(routes: RoutesBuilder) throws {
        routes.get(".well-known", "openid-configuration", use: discovery)
        routes.get("oauth", "jwks", use: jwks)
    }

    /// The issuer, or the 404 that explains how to set one.
    private var issuer: String {
        get throws {
            let issuer = sessions.ring.issuer
            guard issuer.hasPrefix("https://") || issuer.hasPrefix("http://") else {
                throw APIError(.notFound, code: "not_configured",
                               reason: "OpenID Connect needs an issuer URL: start the server with --public-url https://your.host (or HANDOVER_PUBLIC_URL).")
            }
            return issuer
        }
    }

    @Sendable func discovery(request: Request) async throws -> Response {
        let response = Response(status: .ok)
        try response.content.encode(OpenIDProviderMetadata(issuer: try issuer), using: JSONEncoder.api)
        response.headers.replaceOrAdd(name: .cacheControl, value: "public, max-age=3600")
        return response
    }

    /// Every key that can verify a live token, and the next one before it signs. A backend may
    /// cache the set for `max-age` (the key publication lead) and still hold every key it meets.
    /// Published with or without an issuer: the hand-overs' receipts are signed by these keys, and
    /// `handover audit verify-receipt` checks them against this set on any server.
    @Sendable func jwks(request: Request) async throws -> Response {
        let response = Response(status: .ok)
        try response.content.encode(sessions.ring.publicKeys, using: JSONEncoder.api)
        response.headers.replaceOrAdd(name: .contentType, value: "application/jwk-set+json")
        response.headers.replaceOrAdd(name: .cacheControl, value: "public, max-age=\(Int(sessions.settings.keyPublicationLead))")
        return response
    }
}
