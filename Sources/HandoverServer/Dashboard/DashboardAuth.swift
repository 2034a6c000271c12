import Fluent
import Foundation
import HandoverCore
import LinkCallbacks
import Vapor

/// Dashboard sign-in: an admin key buys a browser session. The session cookie is httpOnly,
/// SameSite=Strict, and Secure when the public URL is https. Every form carries the session's
/// CSRF token; the sign-in form, before any session exists, uses a double-submit cookie.
struct DashboardAuth: Sendable {
    let clock: ServerClock
    let origin: PublicOrigin

    static let sessionCookie = "handover_session"
    static let signInCookie = "handover_signin_csrf"
    static let lifetime: TimeInterval = 12 * 3600

    /// The signed-in session, if the request carries a live one.
    func session(_ request: Request) async throws -> DashboardSession? {
        guard let token = request.cookies[Self.sessionCookie]?.string, !token.isEmpty else { return nil }
        guard let session = try await DashboardSession.query(on: request.readDB).filter(\.$tokenHash == BearerSecret.digest(token)).first(),
              session.expiresAt > clock.now() else { return nil }
        return session
    }

    /// Creates a session for a valid admin key; returns the cookie value, or nil for a bad key.
    func signIn(key: String, request: Request) async throws -> (String, DashboardSession)? {
        guard let stored = try await APIKeyIssuer.find(key.trimmingCharacters(in: .whitespacesAndNewlines), on: request.db),
              stored.scope == APIKeyScope.admin.rawValue, let keyID = stored.id else { return nil }
        let token = BearerSecret.random()
        let session = DashboardSession()
        session.tokenHash = BearerSecret.digest(token)
        session.csrfToken = BearerSecret.random()
        session.apiKeyID = keyID
        session.createdAt = clock.now()
        session.expiresAt = session.createdAt.addingTimeInterval(Self.lifetime)
        try await session.create(on: request.db)
        return (token, session)
    }

    /// The cookie that carries `value`, with the flags this server always sets.
    static func cookie(_ value: String, secure: Bool, maxAge: Int?) -> HTTPCookies.Value {
        HTTPCookies.Value(string: value, expires: nil, maxAge: maxAge, domain: nil, path: "/",
                          isSecure: secure, isHTTPOnly: true, sameSite: .strict)
    }

    /// Runs `page` for a signed-in browser: otherwise a redirect to the sign-in form; a
    /// ``DashboardError`` becomes its page.
    func signedIn(_ request: Request, _ page: (DashboardSession) async throws -> Response) async throws -> Response {
        guard let session = try await session(request) else {
            if request.method == .POST {
                return DashboardLayout.errorPage(.forbidden("You are not signed in, or your session ended. Sign in again."), signedIn: nil)
            }
            return DashboardLayout.redirect("/dashboard/sign-in")
        }
        do {
            return try await page(session)
        } catch let error as DashboardError {
            return DashboardLayout.errorPage(error, signedIn: session)
        }
    }

    /// Who acts through `session`, as a device's history names them: the admin key it signed in
    /// with, `"ops" (admin key hov_AbC…) on the dashboard`.
    static func actor(of session: DashboardSession, on database: Database) async throws -> String {
        let key = try await APIKey.find(session.apiKeyID, on: database)
        return key.map { "\"\($0.name)\" (admin key \($0.keyPrefix)…) on the dashboard" } ?? "the dashboard"
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
