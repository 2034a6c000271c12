import Crypto
import Foundation
import HandoverSchema
import LinkCallbacks

/// A person's sign-in to the dashboard through the organisation's provider: the authorization
/// code flow with PKCE, `state` and `nonce` (OpenID Connect Core 1.0 §3.1; RFC 7636), then the
/// role map. Every outcome of a sign-in this server started is written to the sign-in history;
/// a callback no started sign-in is behind (an unknown `state`) is an ``Refusal/unsolicited``
/// refusal, which the caller records through the refusal digest (``RefusalDigest``): anyone can
/// send one, and the log records facts, not input.
package struct AdminSignIn: Sendable {
    package let provider: OrganisationProvider
    package let now: @Sendable () -> Date
    /// How many sign-ins may be in progress at once (each a stored `state`), whatever the
    /// addresses that started them: past it a start is refused (``Busy``) until some finish or
    /// expire. Starts are also limited per address (30 a minute).
    package let maximumAttempts: Int
    /// How long a sign-in may take at the provider.
    package static let attemptLifetime: TimeInterval = 10 * 60

    package init(provider: OrganisationProvider, now: @escaping @Sendable () -> Date, maximumAttempts: Int = 10_000) {
        self.provider = provider
        self.now = now
        self.maximumAttempts = maximumAttempts
    }

    /// A refused sign-in: the sentence the page shows (and the history keeps).
    package struct Refusal: Error, Sendable {
        package var reason: String
        /// Who, as far as known (after the ID token was read).
        package var who: String?
        /// No sign-in this server started is behind the callback (its `state` is unknown): not
        /// recorded by ``finish(state:code:error:errorDescription:redirectURI:on:)``.
        package var unsolicited = false
    }

    /// Too many sign-ins are in progress (``maximumAttempts``): try again after `retryAfter` seconds.
    package struct Busy: Error, Sendable {
        package var retryAfter: Int
    }

    /// Starts a sign-in: stores a new `state`, `nonce` and PKCE verifier, and returns the
    /// provider's authorization URL to send the browser to.
    ///
    /// - Throws: ``Busy`` when ``maximumAttempts`` sign-ins are in progress; ``Refusal`` when
    ///   the provider cannot be reached.
    package func begin(redirectURI: String, on database: DatabaseHandle) async throws -> URL {
        // Attempts never finished are removed by later sign-ins; the others are bounded.
        let started = now()
        let store = PeopleStore(database)
        try await store.removeSignInAttempts(expiredBefore: started)
        let inProgress = try await store.signInAttemptCount()
        guard inProgress < maximumAttempts else {
            let oldest = try await store.firstSignInAttemptExpiry() ?? started
            throw Busy(retryAfter: max(1, Int(oldest.timeIntervalSince(started).rounded(.up))))
        }
        let metadata: ProviderMetadata
        do { metadata = try await provider.discover() } catch {
            throw Refusal(reason: "The identity provider cannot be reached: \(error.description)")
        }
        let state = BearerSecret.random(), nonce = BearerSecret.random(), verifier = BearerSecret.random()
        let attempt = AdminSignInAttempt()
        attempt.stateHash = BearerSecret.digest(state)
        attempt.nonce = nonce
        attempt.codeVerifier = verifier
        attempt.createdAt = started
        attempt.expiresAt = attempt.createdAt.addingTimeInterval(Self.attemptLifetime)
        try await store.insert(attempt)

        var components = URLComponents(url: metadata.authorizationEndpoint, resolvingAgainstBaseURL: false)
        var items = components?.queryItems ?? []
        items += [
            URLQueryItem(name: "response_type", value: "code"),
            URLQueryItem(name: "client_id", value: provider.settings.clientID),
            URLQueryItem(name: "redirect_uri", value: redirectURI),
            URLQueryItem(name: "scope", value: "openid profile email"),
            URLQueryItem(name: "state", value: state),
            URLQueryItem(name: "nonce", value: nonce),
            URLQueryItem(name: "code_challenge", value: Self.challenge(for: verifier)),
            URLQueryItem(name: "code_challenge_method", value: "S256"),
        ]
        components?.queryItems = items
        guard let url = components?.url else { throw Refusal(reason: "The provider's authorization endpoint is not a URL.") }
        return url
    }

    /// RFC 7636 §4.2: `BASE64URL(SHA256(ASCII(code_verifier)))`.
    package static func challenge(for verifier: String) -> String {
        Base64URL.encode(Array(SHA256.hash(data: Data(verifier.utf8))))
    }

    /// Who signed in, and what they may do.
    package struct SignedIn: Sendable {
        package var person: Person
        package var permissions: Permissions
        package var idToken: String
        package var providerSID: String?
    }

    /// Finishes a sign-in from the provider's redirect: the `state` must name a stored attempt
    /// (used once), the code is exchanged, the ID token checked, and the role claim mapped.
    ///
    /// The person's grants are the role map's and the roles an admin granted them on the People
    /// page (``PersonRoles``). A person whose grants no longer include the ones of their last
    /// sign-in lost a role at the provider: every session they opened with the old grants ends (``DashboardSessions``), and so
    /// does every session of a known person who now maps to no role at all.
    ///
    /// - Throws: ``Refusal`` with the reason, already recorded in the history.
    package func finish(state: String?, code: String?, error: String?, errorDescription: String?, redirectURI: String,
                        sessions: DashboardSessions, on database: DatabaseHandle) async throws -> SignedIn {
        do {
            return try await complete(state: state, code: code, error: error, errorDescription: errorDescription,
                                      redirectURI: redirectURI, sessions: sessions, on: database)
        } catch let refusal as Refusal {
            if !refusal.unsolicited {
                try await AdminEvent(at: now(), kind: .refused, who: refusal.who ?? "unknown", detail: refusal.reason).record(on: database)
            }
            throw refusal
        }
    }

    private func complete(state: String?, code: String?, error: String?, errorDescription: String?, redirectURI: String,
                          sessions: DashboardSessions, on database: DatabaseHandle) async throws -> SignedIn {
        let store = PeopleStore(database)
        guard let state, !state.isEmpty, state.utf8.count < 100,
              let attempt = try await store.signInAttempt(stateHash: BearerSecret.digest(state))
        else {
            throw Refusal(reason: "This sign-in was not started here, or was already used (its state is unknown). Start again.", unsolicited: true)
        }
        try await attempt.remove(on: database)
        guard attempt.expiresAt > now() else { throw Refusal(reason: "This sign-in took more than 10 minutes. Start again.") }
        if let error {
            throw Refusal(reason: "The identity provider refused the sign-in: \(StrangerText.bounded(error))"
                          + "\(errorDescription.map { " (\(StrangerText.bounded($0, limit: 200)))" } ?? "").")
        }
        guard let code, !code.isEmpty else { throw Refusal(reason: "The identity provider sent no authorization code.") }
        let claims: ProviderClaims
        let idToken: String
        do {
            idToken = try await provider.exchange(code: code, redirectURI: redirectURI, codeVerifier: attempt.codeVerifier)
            claims = try await provider.verifyIDToken(idToken, nonce: attempt.nonce)
        } catch {
            throw Refusal(reason: "The identity provider's answer was refused: \(error.description).")
        }
        guard let subject = claims.sub else { throw Refusal(reason: "The ID token has no subject.") }
        let settings = provider.settings
        let values = claims.values(of: settings.roleClaim)
        let who = StrangerText.bounded([claims.name, claims.email ?? claims.preferredUsername].compactMap { $0 }.joined(separator: ", "), limit: 200)
        let provided = settings.roleMap.permissions(for: values)
        let known = try await store.person(issuer: settings.issuer, subject: subject)
        // The roles an admin granted on the People page go with the provider's (``PersonRoles``).
        let local = (try? Permissions(text: known?.localGrants ?? "")) ?? Permissions([])
        // The directory's groups (SCIM, issue 67) grant through the same role map.
        var directory = Permissions([])
        if let email = claims.email.flatMap(EmailAddress.init), let text = try await DirectoryStore.grants(login: email.normalized, on: database) {
            directory = (try? Permissions(text: text)) ?? Permissions([])
        }
        let permissions = PersonRoles.effective(provider: Permissions(provided.grants.union(directory.grants)), local: local)
        if let known, let id = known.id, !permissions.includes((try? Permissions(text: known.grants)) ?? Permissions([])) {
            let ended = try await sessions.endAll(of: id, on: database)
            if ended > 0 {
                try await AdminEvent(at: now(), kind: .signedOut, personID: id, who: Self.describe(known),
                                 detail: "role changed at the identity provider (\(permissions.summary), was \(known.grants.isEmpty ? "no role" : known.grants)): "
                                    + "\(ended) session(s) ended").record(on: database)
            }
        }
        guard !permissions.isEmpty else {
            let shown = values.isEmpty ? "no '\(settings.roleClaim)' claim"
                : "'\(settings.roleClaim)' = \(values.prefix(10).map { "'\(StrangerText.bounded($0, limit: 60))'" }.joined(separator: ", "))"
            let who = who.isEmpty ? StrangerText.bounded(subject, limit: 200) : who
            throw Refusal(reason: "You signed in as \(who), but your account has \(shown), which maps to no Handover role. "
                          + "Ask your administrator to add you to a group in HANDOVER_ADMIN_ROLE_MAP.", who: who)
        }
        let person = known ?? {
            let person = Person()
            person.issuer = settings.issuer
            person.subject = subject
            person.firstSeenAt = now()
            return person
        }()
        person.name = claims.name ?? claims.preferredUsername
        person.email = claims.email
        person.grants = permissions.text
        person.providerGrants = provided.text
        person.lastSignInAt = now()
        try await store.save(person)
        try await AdminEvent(at: now(), kind: .signedIn, personID: person.id, who: Self.describe(person),
                                   detail: permissions.summary).record(on: database)
        return SignedIn(person: person, permissions: permissions, idToken: idToken, providerSID: claims.sid)
    }

    /// How a person is named in histories: `Ada Lovelace <ada@example.org>`.
    package static func describe(_ person: Person) -> String {
        switch (person.name, person.email) {
        case let (name?, email?): "\(name) <\(email)>"
        case let (name?, nil): name
        case let (nil, email?): email
        case (nil, nil): person.subject
        }
    }

    /// Handles the provider's logout token (Back-Channel Logout 1.0 §2.5–2.8). With a `sid`, the
    /// sessions opened in that provider session end; with only a `sub`, every session of that
    /// person (§2.7). Returns how many ended.
    ///
    /// Each token acts once: its `iss` and `jti` are recorded (``TokenReplayCache``, until its
    /// `exp`) in the transaction that ends the sessions, so the same token posted again, after the
    /// person signed back in, is refused (§2.6) on every instance, and a token whose sessions
    /// could not be ended is not recorded and may be sent again.
    ///
    /// - Throws: ``ProviderTokenRefusal`` for a token that fails §2.6's checks, or was received before.
    package func logout(token: String, sessions: DashboardSessions, on database: DatabaseHandle) async throws -> Int {
        let claims = try await provider.verifyLogoutToken(token)
        let jti = claims.jti ?? "", issuer = provider.settings.issuer, now = now()
        return try await database.inTransaction { db in
            let store = PeopleStore(db)
            // The claim is written first (on SQLite a transaction that reads first fails when
            // another connection commits in between).
            guard try await store.claimLogoutToken(issuer: issuer, jti: jti, expiresAt: claims.exp ?? now, now: now) else {
                throw ProviderTokenRefusal.replayed(jti: jti)
            }
            var person: Person?
            if let subject = claims.sub {
                person = try await store.person(issuer: issuer, subject: subject)
            }
            var ended = 0
            if let sid = claims.sid {
                ended = try await sessions.endAll(providerSID: sid, on: db)
            } else if let id = person?.id {
                ended = try await sessions.endAll(of: id, on: db)
            }
            let who = person.map(Self.describe) ?? claims.sub ?? "provider session \(claims.sid ?? "")"
            try await AdminEvent(at: now, kind: .loggedOutByProvider, personID: person?.id, who: who,
                                 detail: "\(ended) dashboard session(s) ended").record(on: db)
            return ended
        }
    }
}
