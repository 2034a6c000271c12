import Foundation
import HandoverCore
import HandoverPages
import HandoverSchema
import LinkCallbacks
import Vapor

/// Dashboard sign-in: a person through the organisation's OpenID Connect provider, or an admin
/// key (always when no provider is configured; with one, only under `--allow-key-sign-in`, and
/// recorded as break-glass). The session cookie is httpOnly, SameSite=Strict, and Secure when
/// the public URL is https. Every form carries the session's CSRF token; the sign-in form, before
/// any session exists, uses a double-submit cookie.
struct DashboardAuth: Sendable {
    let clock: ServerClock
    let origin: PublicOrigin
    /// The server's database, which the dashboard's pages read and its forms write.
    let databases: ServerDatabases
    let sessions: DashboardSessions
    /// The organisation's provider, when `--admin-oidc-issuer` is set.
    let provider: AdminSignIn?
    /// Whether an admin key may open the dashboard: with no provider, or `--allow-key-sign-in`.
    let allowsKeySignIn: Bool
    /// The audit log's open alarms, as its passes last read them (no database read a page).
    let auditAlarms: @Sendable () -> [AuditAlarms.Alarm]

    init(clock: ServerClock, origin: PublicOrigin, databases: ServerDatabases, limits: SessionLimits = SessionLimits(), provider: AdminSignIn? = nil,
         revocations: CredentialRevocations, auditAlarms: @escaping @Sendable () -> [AuditAlarms.Alarm] = { [] }) {
        self.clock = clock
        self.origin = origin
        self.databases = databases
        self.sessions = DashboardSessions(limits: limits, revocations: revocations, now: { clock.now() })
        self.provider = provider
        self.allowsKeySignIn = provider.map { $0.provider.settings.allowsKeySignIn } ?? true
        self.auditAlarms = auditAlarms
    }

    static let sessionCookie = "handover_session"
    static let signInCookie = "handover_signin_csrf"

    /// The signed-in session, if the request carries a live one.
    func session(_ request: Request) async throws -> DashboardSession? {
        guard let token = request.cookies[Self.sessionCookie]?.string else { return nil }
        return try await sessions.find(token: token, on: databases.primary)
    }

    /// The lease of a live stream opened with `session`: the stream ends with the session (sign-out,
    /// the provider's logout token, its key revoked, its timeouts), on every instance.
    func streamLease(for session: DashboardSession, _ request: Request) throws -> StreamLease {
        try sessions.revocations.streams.lease(for: session, sessions: sessions, on: databases.reads)
    }

    /// Creates a session for a valid key of a person or service, with the key's role at every
    /// site, or at its one site (a viewer key opens a read-only dashboard: a ward's wall screen); returns the cookie
    /// value, or nil for a bad key, a device's key, or any key while key sign-in is off. With a
    /// provider configured (`--allow-key-sign-in`), only an admin key opens it: break-glass.
    func signIn(key: String, request: Request) async throws -> (String, DashboardSession)? {
        let breakGlass = provider != nil
        guard allowsKeySignIn,
              let stored = try await APIKeyIssuer.find(key.trimmingCharacters(in: .whitespacesAndNewlines), now: clock.now(), on: databases.primary),
              let role = APIKeyScope(rawValue: stored.scope)?.role, !breakGlass || role == .admin, let keyID = stored.id else { return nil }
        let created = try await sessions.create(for: .key(id: keyID, breakGlass: breakGlass),
                                                permissions: KeyRequest.permissions(role: role, site: stored.site), on: databases.primary)
        if breakGlass {
            try await AdminEvent(at: clock.now(), kind: .breakGlass, who: "\"\(stored.name)\" (admin key \(stored.keyPrefix)…)",
                                       detail: "admin key sign-in while the identity provider is configured").record(on: databases.primary)
        }
        return created
    }

    /// The cookie that carries `value`, with the flags this server always sets.
    static func cookie(_ value: String, secure: Bool, maxAge: Int?) -> HTTPCookies.Value {
        HTTPCookies.Value(string: value, expires: nil, maxAge: maxAge, domain: nil, path: "/",
                          isSecure: secure, isHTTPOnly: true, sameSite: .strict)
    }

    /// The session cookie for a new session (it lives as long as the absolute timeout).
    func sessionCookie(_ token: String) -> HTTPCookies.Value {
        Self.cookie(token, secure: origin.isSecure, maxAge: Int(sessions.limits.absolute))
    }

    /// Runs `page` for a signed-in browser whose grants include `role` (every page needs at least
    /// viewer, every form what its action needs). Otherwise: a redirect to the sign-in form, or
    /// a 403 page that names the role needed. The role is checked before the form is read. A
    /// ``DashboardError`` becomes its page.
    ///
    /// - Parameter everySite: whether the role must hold at every site (the registry, the tester,
    ///   people), or at some site: a device's page then checks the device's own site with
    ///   ``requireRole(_:at:in:)``.
    func signedIn(_ request: Request, needs role: AdminRole = .viewer, everySite: Bool = true,
                  _ page: (DashboardViewer) async throws -> Response) async throws -> Response {
        guard let session = try await session(request) else {
            if request.method == .POST {
                return DashboardLayout.errorPage(.forbidden("You are not signed in, or your session ended. Sign in again."), signedIn: nil)
            }
            return DashboardLayout.redirect("/dashboard/sign-in")
        }
        let permissions = session.permissions
        let allowed = session.may(role, everySite: everySite)
        // Every page the session is shown carries the audit log's alarm, while one is open, and
        // who is signed in (one read of the person or key by its id).
        let viewer = DashboardViewer(session: session, name: try await DashboardSessions.who(of: session, on: databases.primary),
                                     auditAlarm: DashboardLayout.alarmBanner(auditAlarms()))
        guard allowed else {
            return DashboardLayout.errorPage(.forbidden("Your role (\(permissions.summary)) does not allow this: it needs \(role.rawValue)"
                                                        + (everySite && role != .viewer ? " at every site." : ".")), signedIn: viewer)
        }
        do {
            return try await page(viewer)
        } catch let error as DashboardError {
            return DashboardLayout.errorPage(error, signedIn: viewer)
        }
    }

    /// Runs a form that acts on the path's device: the session must hold `role` at the device's
    /// site (a device it cannot see is a 404), and the form's CSRF token must be right; `action`
    /// gets the session, the device and who acts (``actor(of:on:)``).
    func deviceAction(_ request: Request, needs role: AdminRole = .operator,
                      _ action: (DashboardViewer, Device, String) async throws -> Response) async throws -> Response {
        try await signedIn(request, needs: role, everySite: false) { viewer in
            let device = try await visibleDevice(request, viewer: viewer)
            try Self.requireRole(role, at: device.site, in: viewer)
            try Self.checkCSRF(request, expected: viewer.csrfToken)
            return try await action(viewer, device, try await actor(of: viewer))
        }
    }

    /// The device the path's `deviceID` names, if `viewer` may see it: a device of another site
    /// is as absent as one that does not exist (404), so its existence is not revealed.
    func visibleDevice(_ request: Request, viewer: DashboardViewer) async throws -> Device {
        guard let text = request.parameters.get("deviceID"), let id = UUID(uuidString: text),
              let device = try await Device.find(id, visibleTo: viewer.siteFilter, on: databases.primary) else {
            throw DashboardError.notFound("No device has this id.")
        }
        return device
    }

    /// Throws a 403 page unless `viewer` holds `role` at `site` (a device's site).
    static func requireRole(_ role: AdminRole, at site: String?, in viewer: DashboardViewer) throws {
        guard viewer.may(role, at: site) else {
            throw DashboardError.forbidden("Your role (\(viewer.permissions.summary)) does not allow this here: it needs \(role.rawValue)"
                                           + (site.map { " at \($0)." } ?? " at every site (this device has no site)."))
        }
    }

    /// Who acts through `viewer`'s session, as a device's history names them
    /// (``DashboardSessions/actor(of:on:)``).
    func actor(of viewer: DashboardViewer) async throws -> String {
        try await DashboardSessions.actor(of: viewer.session, on: databases.primary)
    }

    /// Throws a 403 page unless the form's `csrf` field equals `expected`.
    static func checkCSRF(_ request: Request, expected: String?) throws {
        let presented = (try? request.content.get(String.self, at: "csrf")) ?? ""
        guard let expected, !expected.isEmpty, !presented.isEmpty,
              CallbackNonce.constantTimeEqual(presented, expected) else {
            throw DashboardError.forbidden("The form's security token is missing or wrong. Reload the page and try again.")
        }
    }
}

/// A dashboard or tester failure shown as an HTML page.
struct DashboardError: Error {
    var status: HTTPResponseStatus
    var message: String

    static func forbidden(_ message: String) -> DashboardError { DashboardError(status: .forbidden, message: message) }
    static func notFound(_ message: String) -> DashboardError { DashboardError(status: .notFound, message: message) }
}
