import Foundation
import HandoverSchema
import Mail
import HandoverCore
import HandoverProtocol
import NIOCore
import HandoverPages
import Vapor

/// Email-link sign-in:
///
/// - `POST /auth/email/start {email, deviceID?, clientID?}` mails a one-time link
///   (`/auth/email/verify?token=…`, a universal link claimed in this server's association file).
///   400 for a malformed address; 202 for any well-formed one, whether or not an account exists.
///   With `deviceID` (the fleet device of the app that asks), the session the link starts, in the
///   app or in a browser, ends with that device's hand-over. With `clientID` (the app that asks,
///   registered), the link keeps the app's Apple team.
/// - `POST /auth/email/redeem {token, scope?, clientID?, deviceID?}`: the app opened the link and
///   trades the token for a session; `clientID`, when given (always with `device_sso`), must be
///   a registered app's, of the team that asked for the link when it named one (the link opens
///   the first installed app that claims it, of any team: Native SSO's same-team rule, 400
///   `wrong_team`), and every input is checked before the link is used up.
/// - `GET /auth/email/verify?token=…`: the link landed in a browser. The page asks for one click
///   (a `POST`), so that mail scanners that fetch links do not use the token up, then signs the
///   browser in and says so.
struct EmailSignInRoutes: RouteCollection {
    static let tokenLifetime: TimeInterval = 15 * 60

    let throttle: Throttle
    let clock: ServerClock
    let origin: PublicOrigin
    let sessions: SessionAuthority
    let databases: ServerDatabases
    let mailer: (any MailTransport)?

    struct StartInput: Content {
        var email: String
        /// The fleet device the app asking for the link runs on.
        var deviceID: UUID?
        /// The app asking for the link (its bundle id as registered): only an app of its team may redeem it.
        var clientID: String?
    }
    struct RedeemInput: Content {
        var token: String
        var scope: String?
        /// The app's bundle id; needed with scope `device_sso`.
        var clientID: String?
        var deviceID: UUID?
    }
    struct StartOutput: Content { var status: String }

    func boot(routes: RoutesBuilder) throws {
        let email = routes.grouped("auth", "email")
        email.post("start", use: start)
        email.post("redeem", use: redeem)
        email.get("verify", use: verifyPage)
        email.post("verify", use: verifyInBrowser)
    }

    @Sendable func start(request: Request) async throws -> Response {
        guard let mailer else {
            throw APIError(.notFound, code: "not_configured",
                           reason: "Email sign-in is not configured on this server: set HANDOVER_SMTP_HOST and HANDOVER_SMTP_FROM.")
        }
        let input = try request.content.decode(StartInput.self, using: JSONDecoder.api)
        guard let address = EmailAddress(input.email) else {
            throw APIError(.badRequest, code: "invalid_email",
                           reason: "email: '\(input.email.prefix(80))' is not an email address (local@domain.tld, at most 254 characters).",
                           field: "email")
        }
        let now = clock.now()
        if let wait = throttle.attempt(.emailStart, request, key: "to:" + address.normalized) {
            var error = APIError(.tooManyRequests, code: "rate_limited", reason: "Too many sign-in emails asked for; try again in \(wait) seconds.")
            error.retryAfter = wait
            throw error
        }
        if let deviceID = input.deviceID, try await Device.stored(deviceID, on: databases.primary) == nil {
            throw APIError.invalid("deviceID", "no registered device has this id.")
        }
        var team: String?
        if let clientID = input.clientID { team = try await checkClientID(clientID) }
        let token = BearerSecret.random()
        try await EmailSignInLinks.issue(token, email: address.normalized, deviceID: input.deviceID, team: team, now: now,
                                         expiresAt: now.addingTimeInterval(Self.tokenLifetime), on: databases.primary)
        var link = URLComponents(url: origin.url.appendingPathComponent("auth/email/verify"), resolvingAgainstBaseURL: false)
        link?.queryItems = [URLQueryItem(name: "token", value: token)]
        let message = EmailMessage(
            to: address.normalized, subject: "Your sign-in link",
            body: """
                Open this link on your phone to sign in:

                \(link?.url?.absoluteString ?? "")

                It works once and expires in 15 minutes. If you did not ask to sign in, ignore this email.
                """)
        do {
            try await mailer.send(message)
        } catch {
            request.logger.warning("sign-in email not sent", metadata: ["error": "\(error)"])
            throw APIError(.serviceUnavailable, code: "mail_unavailable", reason: "The sign-in email could not be sent; try again later.")
        }
        let response = Response(status: .accepted)
        try response.content.encode(StartOutput(status: "sent"))
        return response
    }

    /// Counts a link that did not open against the client's address
    /// (``RateLimits/Policy/wrongEmailToken``), once it was found wrong: the seconds to wait when
    /// the address is past its limit (answer 429), else nil. A link is 256 random bits, so a right
    /// one is never refused, whatever its address sent: tokens cannot be guessed at the server's
    /// speed, and one stale link behind a ward's NAT does not stop the others.
    private func wrongLink(_ request: Request) -> Int? {
        throttle.attempt(.wrongEmailToken, request)
    }

    @Sendable func redeem(request: Request) async throws -> Response {
        let input = try request.content.decode(RedeemInput.self, using: JSONDecoder.api)
        let scope = try await SignInScope.parse(scope: input.scope, deviceID: input.deviceID, in: databases)
        // Every input is checked before the link is used up: a refusal leaves it redeemable.
        var team: String?
        if let clientID = input.clientID {
            team = try await checkClientID(clientID)
        } else if scope.deviceSSO {
            throw APIError.invalid("clientID", "with scope device_sso, name the app's bundle id as registered (an appID's part after the team id).")
        }
        if let linkTeam = try await EmailSignInLinks.team(ofLink: input.token, now: clock.now(), on: databases.primary), linkTeam != team {
            throw APIError(.badRequest, code: "wrong_team",
                           reason: "clientID: this link was asked for by an app of team \(linkTeam), and only an app of that team may redeem it; "
                               + (input.clientID.map { "'\($0.prefix(80))' is of team \(team ?? "?")" } ?? "name the app (clientID)")
                               + ". The link still works for an app of team \(linkTeam).",
                           field: "clientID")
        }
        guard let used = try await EmailSignInLinks.consume(input.token, now: clock.now(), on: databases.primary) else {
            if let wait = wrongLink(request) { throw APIError.tooManyRequests(retryAfter: wait) }
            throw APIError(.unauthorized, code: "invalid_link", reason: "This sign-in link is unknown, already used or expired; ask for a new one.",
                           field: "token")
        }
        let user = try await EmailSignInLinks.user(for: used.email, now: clock.now(), on: databases.primary)
        let grant = try await sessions.startSession(for: user, clientID: input.clientID, deviceSSO: scope.deviceSSO,
                                                    deviceID: scope.deviceID ?? used.deviceID, checkOut: .emailLink, on: databases.primary)
        let response = Response(status: .ok)
        try response.content.encode(grant)
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        return response
    }

    /// The app a session is for, with or without `device_sso`: a client id of an app in the
    /// registry (the bundle id after an appID's team id), as Native SSO's token exchange asks of
    /// its `client_id`. An id the registry does not hold is refused, whatever its team, so no
    /// token is made for an audience this server does not serve. 400 `invalid_client_id`,
    /// naming `clientID`. Returns the app's Apple team.
    @discardableResult
    func checkClientID(_ clientID: String) async throws -> String {
        func refuse(_ problem: String) -> APIError {
            APIError(.badRequest, code: "invalid_client_id", reason: "clientID: \(problem)", field: "clientID")
        }
        guard !clientID.isEmpty, clientID.utf8.count <= 255 else {
            throw refuse("give the app's bundle id as registered, 1 to at most 255 characters (\(clientID.utf8.count) were given)")
        }
        guard !clientID.containsControlCharacter else { throw refuse(String.controlCharacterAdvice) }
        guard let team = try await RegisteredClients.team(of: clientID, on: databases.primary) else {
            throw refuse("'\(clientID.prefix(80))' is not an app in this server's registry; accepted: a registered app's bundle id "
                         + "(an appID's part after the team id), such as com.example.notes")
        }
        return team
    }

    @Sendable func verifyPage(request: Request) async throws -> Response {
        let token = (try? request.query.get(String.self, at: "token")) ?? ""
        let now = clock.now()
        guard let email = try await EmailSignInLinks.usableLinkEmail(token, now: now, on: databases.primary) else { return wrongLink(request).map(Self.tooManyAttempts) ?? Self.expired() }
        return EmailSignInPage.confirm(email: email, token: token).response(.ok)
    }

    @Sendable func verifyInBrowser(request: Request) async throws -> Response {
        struct Form: Content { var token: String }
        // Login CSRF: a page on another site must not sign this browser in with its own link.
        guard isSameOrigin(request) else {
            return EmailSignInPage.otherSite.response(.forbidden)
        }
        let form = (try? request.content.decode(Form.self)) ?? Form(token: "")
        guard let used = try await EmailSignInLinks.consume(form.token, now: clock.now(), on: databases.primary) else {
            return wrongLink(request).map(Self.tooManyAttempts) ?? Self.expired()
        }
        let email = used.email
        let user = try await EmailSignInLinks.user(for: email, now: clock.now(), on: databases.primary)
        // A link an app on a fleet device asked for: this browser session ends with that device's hand-over.
        let grant = try await sessions.startSession(for: user, clientID: "web", deviceID: used.deviceID, checkOut: .emailLink, on: databases.primary)
        let response = EmailSignInPage.signedIn(email: email).response(.ok)
        let secure = origin.isSecure
        response.cookies["handover_web_session"] = HTTPCookies.Value(
            string: grant.accessToken, maxAge: grant.expiresIn, path: "/", isSecure: secure, isHTTPOnly: true, sameSite: .lax)
        return response
    }

    /// Whether a browser's form post comes from this server's own page: its `Origin` (or, without
    /// one, `Sec-Fetch-Site`) names this server. A client that sends neither (not a browser) passes.
    private func isSameOrigin(_ request: Request) -> Bool {
        if let origin = request.headers.first(name: .origin) {
            return origin.lowercased() == Self.origin(of: self.origin.url)
        }
        if let site = request.headers.first(name: "Sec-Fetch-Site")?.lowercased() { return site == "same-origin" || site == "none" }
        return true
    }

    static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? "https"
        let port = url.port.map { ":\($0)" } ?? ""
        return "\(scheme)://\(url.host?.lowercased() ?? "")\(port)"
    }

    static func expired() -> Response {
        EmailSignInPage.expired.response(.gone)
    }

    /// The page for a wrong link past the limit: 429 with `Retry-After`.
    static func tooManyAttempts(_ wait: Int) -> Response {
        let response = EmailSignInPage.tooManyAttempts(wait: wait).response(.tooManyRequests)
        response.headers.replaceOrAdd(name: .retryAfter, value: String(wait))
        return response
    }

}
