import Foundation

extension SharedSignalsReceiver {
    /// Why a Global Token Revocation request was refused: the HTTP status and a sentence.
    package struct RevocationRefusal: Error, Sendable, Equatable {
        package var status: Int
        package var error: String
        package var description: String
    }

    /// A Global Token Revocation request (draft-parecki-oauth-global-token-revocation, as
    /// Okta's Universal Logout sends it): the bearer is a JWT the identity provider signed with a
    /// key of its JWKS, for `endpoint` (`aud`), short-lived (`exp`), and the body names the person.
    /// Answers what was done; a person nobody here knows is 404, as the draft's "Revocation
    /// Response" says.
    package func revokeGlobally(bearer: String, request: RevocationRequest, endpoint: String) async throws(RevocationRefusal) -> PersonHandOver.Done {
        let claims: RevocationRequestClaims
        do {
            claims = try await keys.verify(bearer, as: RevocationRequestClaims.self)
        } catch {
            throw RevocationRefusal(status: 401, error: "invalid_token", description: "the bearer token is not signed by the identity provider's key (\(error))")
        }
        let now = clock.now().timeIntervalSince1970
        guard claims.iss == settings.issuer else {
            throw RevocationRefusal(status: 401, error: "invalid_token", description: "iss '\((claims.iss ?? "absent").prefix(200))' is not the configured identity provider")
        }
        guard let aud = claims.aud?.values, aud.contains(endpoint) || aud.contains(where: audiences.contains) else {
            throw RevocationRefusal(status: 401, error: "invalid_token", description: "aud does not name this endpoint (\(endpoint))")
        }
        guard let exp = claims.exp, TimeInterval(exp) > now - Self.leeway else {
            throw RevocationRefusal(status: 401, error: "invalid_token", description: "the bearer token has expired or has no exp")
        }
        if let iat = claims.iat, TimeInterval(iat) > now + Self.leeway {
            throw RevocationRefusal(status: 401, error: "invalid_token", description: "the bearer token is issued in the future")
        }
        guard let person = request.sub_id.person else {
            throw RevocationRefusal(status: 400, error: "invalid_request", description: "sub_id names no person: use email or iss_sub")
        }
        let done: PersonHandOver.Done
        do {
            done = try await PersonHandOver(sessions: sessions, runs: runs, dashboard: dashboard)
                .handOver(person, trustedIssuers: [settings.issuer, sessions.ring.issuer] + audiences, reason: "identity provider: global token revocation")
            try await recordRevocation(jti: claims.jti, done: done)
        } catch {
            throw RevocationRefusal(status: 422, error: "unable_to_revoke", description: "the sessions could not be ended now (\(error)); send the request again")
        }
        guard done.people > 0 else { throw RevocationRefusal(status: 404, error: "user_not_found", description: "nobody here matches that sub_id") }
        return done
    }

    private func recordRevocation(jti: String?, done: PersonHandOver.Done) async throws {
        let now = clock.now()
        try await AuditTrail.append([AuditEvent(type: "signals.global_token_revocation", at: now, actor: AuditActor(kind: "provider", iss: settings.issuer),
                                                detail: ["jti": jti ?? "", "people": "\(done.people)", "sessions ended": "\(done.sessions)",
                                                         "runs started": "\(done.runs.count)"])], on: database, now: now)
    }
}
