import Foundation
import HandoverCore
import Vapor

/// Handover as a Shared Signals receiver over HTTP: `POST /ssf/push`, where the organisation's
/// identity provider pushes SETs (RFC 8935), and `POST /oauth/global-token-revocation`, where it
/// asks for a person's sessions to end (Global Token Revocation, as Okta's Universal Logout calls
/// it). Both act through ``SharedSignalsReceiver``; without a configured transmitter
/// (`HANDOVER_SSF_TRANSMITTER_ISSUER`) both answer 404 `not_configured`.
struct ReceiverRoutes: RouteCollection {
    static let revocationPath = "/oauth/global-token-revocation"

    let receiver: SharedSignalsReceiver?
    let throttle: Throttle
    let origin: PublicOrigin

    func boot(routes: RoutesBuilder) throws {
        routes.on(.POST, "ssf", "push", body: .collect(maxSize: "64kb"), use: push)
        routes.on(.POST, "oauth", "global-token-revocation", body: .collect(maxSize: "16kb"), use: revoke)
    }

    private func configured() throws -> SharedSignalsReceiver {
        guard let receiver else {
            throw APIError(.notFound, code: "not_configured",
                           reason: "This server receives no security events: set HANDOVER_SSF_TRANSMITTER_ISSUER and HANDOVER_SSF_TRANSMITTER_JWKS_URL.")
        }
        return receiver
    }

    /// An RFC 8935 §2.3 error answer: `{"err", "description"}`.
    private func setError(_ status: HTTPResponseStatus, _ err: String, _ description: String) throws -> Response {
        let response = Response(status: status)
        try response.content.encode(["err": err, "description": description], using: JSONEncoder.api)
        return response
    }

    /// RFC 8935 §2: the exact `Authorization` value configured, `application/secevent+jwt`, one
    /// SET; 202 when it was acted on (or was a repeat, or a type ignored), 400 with the §2.4 code
    /// when it is refused.
    @Sendable func push(request: Request) async throws -> Response {
        let receiver = try configured()
        guard let expected = receiver.settings.pushAuthorization, let given = request.headers.first(name: .authorization),
              CallbackNonce.constantTimeEqual(BearerSecret.digest(given), BearerSecret.digest(expected)) else {
            // Counted once found wrong: the right Authorization is taken whatever its address sent.
            if let wait = throttle.attempt(.wrongBearer, request) { throw DomainError.rateLimited(retryAfter: wait) }
            return try setError(.unauthorized, "authentication_failed",
                                receiver.settings.pushAuthorization == nil ? "This server takes no pushed SETs (HANDOVER_SSF_PUSH_AUTHORIZATION is not set)."
                                    : "The Authorization header is not the one this receiver was given.")
        }
        guard request.headers.contentType.map({ $0.type == "application" && $0.subType == "secevent+jwt" }) == true else {
            return try setError(.badRequest, "invalid_request", "The body must be one SET as application/secevent+jwt (RFC 8935 §2.1).")
        }
        let token = request.body.data.map { String(decoding: $0.readableBytesView, as: UTF8.self) }?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        do {
            _ = try await receiver.receive(token, via: "push")
            return Response(status: .accepted)
        } catch let refusal {
            // Not the SET's fault (a database or the provider's keys unavailable): retry later.
            if refusal.err == "temporarily_unavailable" { return try setError(.serviceUnavailable, refusal.err, refusal.description) }
            return try setError(.badRequest, refusal.err, refusal.description)
        }
    }

    /// The revocation request: `Authorization: Bearer <JWT>` and `{"sub_id": …}`; 204 when the
    /// person's sessions ended.
    @Sendable func revoke(request: Request) async throws -> Response {
        let receiver = try configured()
        guard let bearer = request.headers.bearerAuthorization?.token else {
            if let wait = throttle.attempt(.wrongBearer, request) { throw DomainError.rateLimited(retryAfter: wait) }
            return try oauthError(.unauthorized, "invalid_token", "Send Authorization: Bearer with a JWT your identity provider signed.")
        }
        guard request.headers.contentType == .json, let data = request.body.data,
              let body = try? JSONDecoder().decode(RevocationRequest.self, from: Data(data.readableBytesView)) else {
            return try oauthError(.badRequest, "invalid_request", "The body must be JSON with sub_id, a subject identifier (RFC 9493) such as {\"format\": \"email\", \"email\": …}.")
        }
        do {
            _ = try await receiver.revokeGlobally(bearer: bearer, request: body, endpoint: origin.url.absoluteString.trimmingSlash + Self.revocationPath)
            return Response(status: .noContent)
        } catch let refusal {
            if refusal.status == 401, let wait = throttle.attempt(.wrongBearer, request) { throw DomainError.rateLimited(retryAfter: wait) }
            return try oauthError(HTTPResponseStatus(statusCode: refusal.status), refusal.error, refusal.description)
        }
    }

    private func oauthError(_ status: HTTPResponseStatus, _ error: String, _ description: String) throws -> Response {
        let response = Response(status: status)
        try response.content.encode(["error": error, "error_description": description], using: JSONEncoder.api)
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        // RFC 6750 §3: the challenge of a refused bearer; §3.1 names the scope a 403 lacks.
        if status == .unauthorized { response.headers.replaceOrAdd(name: .wwwAuthenticate, value: "Bearer realm=\"handover\", error=\"\(error)\"") }
        if status == .forbidden {
            response.headers.replaceOrAdd(name: .wwwAuthenticate,
                                          value: "Bearer realm=\"handover\", error=\"\(error)\", scope=\"\(SharedSignalsReceiver.revocationScope)\"")
        }
        return response
    }
}

private extension String {
    var trimmingSlash: String { hasSuffix("/") ? String(dropLast()) : self }
}
