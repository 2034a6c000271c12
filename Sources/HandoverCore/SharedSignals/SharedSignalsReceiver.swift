import AsyncHTTPClient
import Foundation
import SessionTokens

/// Handover as a Shared Signals receiver: the organisation's identity provider transmits, and a
/// person it disables (a termination, a compromised account) has every Handover session ended
/// and the device they hold handed over, as the overdue flow does.
///
/// A SET (pushed, RFC 8935; or polled, RFC 8936) is checked as RFC 8417 §2 and SSF 1.0 §4.1 say:
/// signature by a key of the transmitter's JWKS, `typ` `secevent+jwt`, `iss` the configured
/// transmitter, `aud` this server, `iat` neither stale nor in the future, a `jti`, one event,
/// a subject, no `sub` and no `exp`. Each refusal is an RFC 8935 §2.4 code (``SETRefusal``).
///
/// Acted on: CAEP `session-revoked` and `credential-change`; RISC `account-disabled`,
/// `account-purged`, `credential-compromise` and `sessions-revoked`. Other event types are
/// acknowledged and ignored (SSF 1.0 §4.1 leaves processing to the receiver). Each SET is recorded
/// by issuer and `jti`, with an audit log entry; a repeated `jti` does nothing. The action comes
/// before the record, and repeating it changes nothing, so a crash between them only makes the
/// transmitter's retry act again.
package struct SharedSignalsReceiver: Sendable {
    package struct Settings: Sendable, Equatable {
        /// `HANDOVER_SSF_TRANSMITTER_ISSUER`: the `iss` of every SET accepted.
        package var issuer: String
        /// `HANDOVER_SSF_TRANSMITTER_JWKS_URL`: the transmitter's keys.
        package var jwksURL: URL
        /// `HANDOVER_SSF_PUSH_AUTHORIZATION`: the exact `Authorization` value pushes must carry
        /// (nil: `POST /ssf/push` refuses every push).
        package var pushAuthorization: String?
        /// `HANDOVER_SSF_TRANSMITTER_POLL_URL` and its `Authorization` value: poll the transmitter.
        package var pollURL: URL?
        package var pollAuthorization: String?
        /// The oldest `iat` accepted.
        package var maximumAge: TimeInterval = 600

        package init(issuer: String, jwksURL: URL, pushAuthorization: String? = nil, pollURL: URL? = nil, pollAuthorization: String? = nil) {
            self.issuer = issuer
            self.jwksURL = jwksURL
            self.pushAuthorization = pushAuthorization
            self.pollURL = pollURL
            self.pollAuthorization = pollAuthorization
        }
    }

    package let settings: Settings
    /// This server's identifiers as an audience: its public origin, and its issuer.
    package let audiences: Set<String>
    package let keys: RemoteKeySet
    package let database: DatabaseHandle
    package let sessions: SessionAuthority
    package let runs: LogoutRunService
    /// The dashboard's sessions: a person the provider disables is signed out of it too.
    package let dashboard: DashboardSessions
    package let clock: ServerClock

    package init(settings: Settings, audiences: Set<String>, http: HTTPClient, database: DatabaseHandle, sessions: SessionAuthority,
                 runs: LogoutRunService, dashboard: DashboardSessions, clock: ServerClock) {
        self.settings = settings
        self.audiences = audiences
        keys = RemoteKeySet(url: settings.jwksURL.absoluteString, http: http, now: { clock.now() })
        self.database = database
        self.sessions = sessions
        self.runs = runs
        self.dashboard = dashboard
        self.clock = clock
    }

    /// What receiving one SET did.
    package struct Outcome: Sendable, Equatable {
        package var jti: String
        package var type: String
        /// The SET was received before: nothing was done.
        package var repeated = false
        /// Not a type this server acts on: acknowledged, ignored.
        package var ignored = false
        package var people = 0
        package var sessionsEnded = 0
        package var runsStarted: [UUID] = []
    }

    /// Checks, records and acts on one SET.
    package func receive(_ token: String, via delivery: String) async throws(SETRefusal) -> Outcome {
        let claims = try await checked(token)
        let jti = claims.jti ?? "", type = claims.events?.keys.first ?? ""
        do {
            let store = SharedSignalsStore(database)
            guard store.speaksSQL else { throw SETRefusal.invalidRequest("storage unavailable") }
            if try await store.wasReceived(issuer: settings.issuer, jti: jti) {
                return Outcome(jti: jti, type: type, repeated: true)
            }
            var outcome = Outcome(jti: jti, type: type)
            switch ReceivedEventRules.action(for: claims) {
            case .handOver(let person, let reason):
                let done = try await PersonHandOver(sessions: sessions, runs: runs, dashboard: dashboard)
                    .handOver(person, trustedIssuers: [settings.issuer, sessions.ring.issuer] + audiences, reason: reason)
                outcome.people = done.people
                outcome.sessionsEnded = done.sessions + done.dashboardSessions
                outcome.runsStarted = done.runs
            case .ignore:
                outcome.ignored = true
            }
            try await record(outcome, via: delivery)
            return outcome
        } catch let refusal as SETRefusal {
            throw refusal
        } catch {
            // Not the SET's fault: the transmitter should retry (RFC 8935 §2.3 covers refusals only).
            throw SETRefusal(err: "temporarily_unavailable", description: "The event could not be processed now (\(error)); send it again.")
        }
    }

    /// The SET's claims, or why it is refused.
    package func checked(_ token: String) async throws(SETRefusal) -> ReceivedSecurityEvent {
        guard token.utf8.count <= 64 * 1024 else { throw .invalidRequest("the SET is longer than 64 KB") }
        let header: RemoteKeySet.Header
        do { header = try RemoteKeySet.header(token) } catch { throw .invalidRequest("the body is not a compact JWS (\(error))") }
        try ReceivedEventRules.checkType(header.typ)
        let claims: ReceivedSecurityEvent
        do {
            claims = try await keys.verify(token, as: ReceivedSecurityEvent.self)
        } catch {
            switch error {
            case .badSignature: throw .invalidKey("the signature does not verify with the transmitter's key")
            case .unknownKey(let kid): throw .invalidKey("the key id '\(kid.prefix(80))' is not in the transmitter's JWKS")
            case .algorithm(let alg): throw .invalidKey("the algorithm '\(alg.prefix(20))' is not accepted (asymmetric only)")
            case .keysUnavailable(let why): throw SETRefusal(err: "temporarily_unavailable", description: "the transmitter's keys could not be read: \(why)")
            case .malformed(let why): throw .invalidRequest("the SET could not be read: \(why)")
            }
        }
        try ReceivedEventRules.check(claims, issuer: settings.issuer, audiences: audiences, now: clock.now(), maximumAge: settings.maximumAge)
        return claims
    }

    /// Records the SET by issuer and `jti`, with its audit entry; a SET recorded meanwhile (a
    /// concurrent delivery of it) writes nothing.
    private func record(_ outcome: Outcome, via delivery: String) async throws {
        let now = clock.now()
        let text = outcome.ignored ? "ignored" : "people \(outcome.people), sessions ended \(outcome.sessionsEnded), runs started \(outcome.runsStarted.count)"
        let audit = AuditEvent(type: "signals.received", at: now, actor: AuditActor(kind: "provider", iss: settings.issuer),
                               detail: ["jti": outcome.jti, "event": outcome.type, "via": delivery, "outcome": text])
        try await SharedSignalsStore(database).recordReceived(issuer: settings.issuer, jti: outcome.jti, type: outcome.type, outcome: text, at: now, audit: audit)
    }
}
