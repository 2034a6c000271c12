import Foundation
import HandoverCore
import HandoverPages
import HandoverSchema
import Vapor

/// Dashboard sign-in through the organisation's OpenID Connect provider (issue 39):
///
/// - `GET /dashboard/sign-in/provider` starts the authorization code flow (PKCE, `state`,
///   `nonce`) and sends the browser to the provider;
/// - `GET /dashboard/sign-in/callback` is the redirect URI to register at the provider;
/// - `POST /dashboard/backchannel-logout` is the Back-Channel Logout URI to register: the
///   provider's logout token ends the person's sessions (Back-Channel Logout 1.0 §2.5);
/// - `POST /dashboard/sign-out-everywhere` ends every session of the signed-in person.
///
/// Anyone can call the first three. Starts are limited per address
/// (``RateLimits/Policy/dashboardSignInStart``), and so are refused callbacks and refused logout
/// tokens (``RateLimits/Policy/refusedSignIn``), counted once refused: a valid one is always taken.
/// Those refusals reach the audit log through the refusal digest (``Throttle/recordRefusal(_:who:_:rateLimited:)``),
/// not one entry per request.
struct ProviderSignInRoutes: RouteCollection {
    let auth: DashboardAuth
    let origin: PublicOrigin
    let throttle: Throttle
    /// The sign-in page, shown again with the reason when a sign-in is refused.
    let signInPage: @Sendable (Request, String?, HTTPResponseStatus) -> Response

    /// The cookie that binds a sign-in's `state` to the browser that started it. SameSite=Lax:
    /// it must come back on the provider's cross-site redirect.
    static let stateCookie = "handover_oidc_state"

    /// The redirect URI this server registers at the provider.
    var redirectURI: String { origin.url.absoluteString + "/dashboard/sign-in/callback" }

    func boot(routes: RoutesBuilder) throws {
        let dashboard = routes.grouped("dashboard")
        dashboard.get("sign-in", "provider", use: begin)
        dashboard.get("sign-in", "callback", use: callback)
        dashboard.post("backchannel-logout", use: backChannelLogout)
        dashboard.post("sign-out-everywhere", use: signOutEverywhere)
    }

    @Sendable func begin(_ request: Request) async throws -> Response {
        guard let provider = auth.provider else {
            return signInPage(request, "No identity provider is configured on this server.", .notFound)
        }
        if let wait = throttle.attempt(.dashboardSignInStart, request) {
            return waitPage(request, "Too many sign-ins were started from this address; try again in \(wait) seconds.", .tooManyRequests, wait)
        }
        let url: URL
        do {
            url = try await provider.begin(redirectURI: redirectURI, on: auth.databases.primary)
        } catch let refusal as AdminSignIn.Refusal {
            return signInPage(request, refusal.reason, .badGateway)
        } catch let busy as AdminSignIn.Busy {
            return waitPage(request, "Too many sign-ins are in progress; try again in \(busy.retryAfter) seconds.", .serviceUnavailable, busy.retryAfter)
        }
        let response = DashboardLayout.redirect(url.absoluteString)
        let state = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "state" }?.value ?? ""
        response.cookies[Self.stateCookie] = HTTPCookies.Value(string: BearerSecret.digest(state), maxAge: Int(AdminSignIn.attemptLifetime),
                                                               path: "/dashboard/sign-in", isSecure: origin.isSecure, isHTTPOnly: true,
                                                               sameSite: .lax)
        return response
    }

    @Sendable func callback(_ request: Request) async throws -> Response {
        guard let provider = auth.provider else {
            return signInPage(request, "No identity provider is configured on this server.", .notFound)
        }
        let query = { (name: String) in try? request.query.get(String.self, at: name) }
        let state = query("state")
        // The state must come back to the browser that asked for it: a sign-in started in one
        // browser cannot be finished in another (login CSRF).
        guard let state, let bound = request.cookies[Self.stateCookie]?.string, bound == BearerSecret.digest(state) else {
            return try await refused(request, "the sign-in's state is not the one this browser started",
                                     page: "This sign-in was not started in this browser, or it was already used. Start again.")
        }
        let signedIn: AdminSignIn.SignedIn
        do {
            signedIn = try await provider.finish(state: state, code: query("code"), error: query("error"),
                                                 errorDescription: query("error_description"), redirectURI: redirectURI,
                                                 sessions: auth.sessions, on: auth.databases.primary)
        } catch let refusal as AdminSignIn.Refusal {
            let response = if refusal.unsolicited {
                try await refused(request, refusal.reason, page: refusal.reason)
            } else {
                signInPage(request, refusal.reason, .forbidden)
            }
            response.cookies[Self.stateCookie] = HTTPCookies.Value(string: "", maxAge: 0, path: "/dashboard/sign-in")
            return response
        }
        let (token, session) = try await auth.sessions.create(
            for: .person(signedIn.person, idToken: signedIn.idToken, providerSID: signedIn.providerSID),
            permissions: signedIn.permissions, on: auth.databases.primary)
        // A page, not a redirect: the browser arrived here from the provider's site, and a
        // SameSite=Strict cookie set now is sent only on a navigation this site starts.
        let response = DashboardLayout.page(ProviderSignedInPage.title, signedIn: DashboardViewer(session: session, name: nil, auditAlarm: nil)) {
            ProviderSignedInPage.body(person: AdminSignIn.describe(signedIn.person), permissions: signedIn.permissions.summary)
        }
        response.cookies[DashboardAuth.sessionCookie] = auth.sessionCookie(token)
        response.cookies[Self.stateCookie] = HTTPCookies.Value(string: "", maxAge: 0, path: "/dashboard/sign-in")
        return response
    }

    /// Back-Channel Logout 1.0 §2.5 and §2.8: a form-encoded `logout_token`; 200 when it was
    /// accepted, 400 with an OAuth error body when not; never cached.
    @Sendable func backChannelLogout(_ request: Request) async throws -> Response {
        guard let provider = auth.provider else { throw Abort(.notFound) }
        let token = (try? request.content.get(String.self, at: "logout_token")) ?? ""
        let response: Response
        do {
            guard !token.isEmpty else { throw ProviderTokenRefusal.malformed("no logout_token parameter") }
            _ = try await provider.logout(token: token, sessions: auth.sessions, on: auth.databases.primary)
            response = Response(status: .ok)
        } catch let refusal as ProviderTokenRefusal {
            // Anyone can post here: counted once refused (the provider's valid tokens never are),
            // and recorded through the refusal digest, with the token's text bounded.
            let wait = throttle.attempt(.refusedSignIn, request)
            try await throttle.recordRefusal("logout token refused: \(refusal.description)", who: "unknown", request, rateLimited: wait != nil)
            if let wait { throw APIError.tooManyRequests(retryAfter: wait) }
            response = Response(status: .badRequest)
            try response.content.encode(["error": "invalid_request", "error_description": refusal.description], as: .json)
        }
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        return response
    }

    /// A callback no sign-in this server started is behind: counted for the address's limit,
    /// recorded through the refusal digest, and answered with `page` (or 429 past the limit).
    private func refused(_ request: Request, _ reason: String, page: String) async throws -> Response {
        let wait = throttle.attempt(.refusedSignIn, request)
        try await throttle.recordRefusal(reason, who: "unknown", request, rateLimited: wait != nil)
        guard let wait else { return signInPage(request, page, .forbidden) }
        return waitPage(request, "Too many refused sign-ins from this address; try again in \(wait) seconds.", .tooManyRequests, wait)
    }

    /// The sign-in page saying `message`, with `Retry-After`.
    private func waitPage(_ request: Request, _ message: String, _ status: HTTPResponseStatus, _ wait: Int) -> Response {
        let response = signInPage(request, message, status)
        response.headers.replaceOrAdd(name: .retryAfter, value: String(wait))
        return response
    }

    @Sendable func signOutEverywhere(_ request: Request) async throws -> Response {
        try await auth.signedIn(request) { viewer in
            try DashboardAuth.checkCSRF(request, expected: viewer.csrfToken)
            guard let personID = viewer.personID else {
                throw DashboardError.forbidden("This session was opened with an admin key; sign out ends it.")
            }
            let ended = try await auth.sessions.endAll(of: personID, on: auth.databases.primary)
            let who = try await auth.actor(of: viewer)
            try await AdminEvent(at: auth.clock.now(), kind: .signedOut, personID: personID,
                                       who: who.replacingOccurrences(of: " on the dashboard", with: ""),
                                       detail: "everywhere: \(ended) session(s)").record(on: auth.databases.primary)
            let response = DashboardLayout.redirect("/dashboard/sign-in")
            response.cookies[DashboardAuth.sessionCookie] = DashboardAuth.cookie("", secure: origin.isSecure, maxAge: 0)
            return response
        }
    }
}
