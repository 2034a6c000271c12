import Foundation
import SessionTokens

extension SharedSignalsReceiver {
    /// Why a Global Token Revocation request was refused: the HTTP status and a sentence.
    package struct RevocationRefusal: Error, Sendable, Equatable {
        package var status: Int
        package var error: String
        package var description: String
    }

    /// The scope a revocation bearer must carry (draft §6.1: "a single scope that enables it to
    /// perform the revocation request, and no other type of token issued should include this scope").
    package static let revocationScope = "global_token_revocation"
    /// The longest life a revocation bearer may have, `exp` − `iat` (a bearer for one request,
    /// sent at once: Okta's Universal Logout gives its bearers 5 minutes).
    package static let maximumRevocationLifetime: TimeInterval = 600

    /// A Global Token Revocation request (draft-parecki-oauth-global-token-revocation, as
    /// Okta's Universal Logout sends it). Its bearer (§3.2: the request MUST be authenticated) is a
    /// JWT the identity provider signed with a key of its JWKS, and is checked:
    ///
    /// - `iss` the configured provider, `aud` this server (the endpoint's URL, its public URL or
    ///   its issuer);
    /// - `iat` and `exp` both present, `exp` in the future, and at most
    ///   ``maximumRevocationLifetime`` apart;
    /// - `scope` holding ``revocationScope`` (§6.1), else 403 (§3.4.2: "missing scopes");
    /// - a `jti` not seen before: each bearer acts once (``TokenReplayCache``, kept until its
    ///   `exp`), so that one bearer cannot end a second person's sessions.
    ///
    /// The body names the person. Answers what was done; a person nobody here knows is 404, as
    /// the draft's "Revocation Response" says.
    package func revokeGlobally(bearer: String, request: RevocationRequest, endpoint: String) async throws(RevocationRefusal) -> PersonHandOver.Done {
        let claims: RevocationRequestClaims
        do {
            claims = try await keys.verify(bearer, as: RevocationRequestClaims.self)
        } catch {
            throw RevocationRefusal(status: 401, error: "invalid_token", description: "the bearer token is not signed by the identity provider's key (\(error))")
        }
        let now = clock.now().timeIntervalSince1970
        guard let issuer = claims.iss, issuer == settings.issuer else {
            throw RevocationRefusal(status: 401, error: "invalid_token", description: "iss '\((claims.iss ?? "absent").prefix(200))' is not the configured identity provider")
        }
        guard let aud = claims.aud?.values, aud.contains(endpoint) || aud.contains(where: audiences.contains) else {
            throw RevocationRefusal(status: 401, error: "invalid_token",
                                    description: "aud does not name this server: give \(endpoint) (or \(audiences.sorted().joined(separator: " or ")))")
        }
        guard let exp = claims.exp, TimeInterval(exp) > now - ReceivedEventRules.leeway else {
            throw RevocationRefusal(status: 401, error: "invalid_token", description: "the bearer token has expired or has no exp")
        }
        guard let iat = claims.iat else {
            throw RevocationRefusal(status: 401, error: "invalid_token", description: "the bearer token has no iat: its lifetime cannot be checked")
        }
        guard TimeInterval(iat) <= now + ReceivedEventRules.leeway else {
            throw RevocationRefusal(status: 401, error: "invalid_token", description: "the bearer token is issued in the future (iat)")
        }
        let lifetime = exp.subtractingReportingOverflow(iat)
        guard !lifetime.overflow, lifetime.partialValue >= 0, TimeInterval(lifetime.partialValue) <= Self.maximumRevocationLifetime else {
            throw RevocationRefusal(status: 401, error: "invalid_token",
                                    description: "the bearer token's lifetime (exp - iat) is \(lifetime.overflow ? "out of range" : "\(lifetime.partialValue) s"); this server takes at most \(Int(Self.maximumRevocationLifetime)) s")
        }
        guard let jti = claims.jti, !jti.isEmpty, jti.utf8.count <= 256, !jti.containsControlCharacter else {
            throw RevocationRefusal(status: 401, error: "invalid_token", description: "the bearer token has no jti (at most 256 characters): each bearer acts once, by its jti")
        }
        guard (claims.scope ?? "").split(separator: " ").contains(Substring(Self.revocationScope)) else {
            throw RevocationRefusal(status: 403, error: "insufficient_scope",
                                    description: "the bearer token's scope does not hold \(Self.revocationScope) (draft-parecki-oauth-global-token-revocation §6.1)")
        }
        guard let person = request.sub_id.person else {
            throw RevocationRefusal(status: 400, error: "invalid_request", description: "sub_id names no person: use email or iss_sub")
        }
        let claimed: Bool
        do {
            claimed = try await SharedSignalsStore(database).claimRevocation(issuer: issuer, jti: jti,
                                                                             expiresAt: Date(timeIntervalSince1970: TimeInterval(exp)), now: clock.now())
        } catch {
            throw RevocationRefusal(status: 422, error: "unable_to_revoke", description: "the request could not be recorded now (\(error)); send it again")
        }
        guard claimed else {
            throw RevocationRefusal(status: 401, error: "invalid_token",
                                    description: "the bearer token (jti '\(jti.prefix(80))') was used before: each bearer acts once; ask the identity provider for a new one")
        }
        let done: PersonHandOver.Done
        do {
            done = try await PersonHandOver(sessions: sessions, runs: runs, dashboard: dashboard)
                .handOver(person, trustedIssuers: [settings.issuer, sessions.ring.issuer] + audiences, reason: "identity provider: global token revocation")
            try await recordRevocation(jti: jti, done: done)
        } catch {
            // Nothing was done: the provider may send the same bearer again.
            try? await SharedSignalsStore(database).releaseRevocation(issuer: issuer, jti: jti)
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
