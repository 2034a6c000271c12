import Foundation
import HandoverCore
import HandoverProtocol
import HandoverPages
import HandoverSchema
import Vapor

/// The dashboard's forms for a registered app (issue 39): change its logout settings and its
/// backend's Back-Channel Logout URI, or remove it. Admins only; the same checks and sentences as
/// `PATCH` and `DELETE /api/v1/apps/{id}`, through ``HandoverCore/AppRegistrar``.
struct AppFormRoutes: RouteCollection {
    let auth: DashboardAuth
    /// Registers apps (built when asked: it reads the public origin, known once the port is bound).
    let appRegistrar: @Sendable () -> AppRegistrar
    let associationFiles: AssociationFileCache

    func boot(routes: RoutesBuilder) throws {
        let app = routes.grouped("dashboard", "apps", ":appID")
        app.get("edit", use: editForm)
        app.post("edit", use: edit)
        app.post("remove", use: remove)
    }

    private func app(_ request: Request) async throws -> RegisteredApp {
        guard let text = request.parameters.get("appID"), let id = UUID(uuidString: text),
              let app = try await RegisteredApp.stored(id, on: auth.databases.primary) else {
            throw DashboardError.notFound("No app has this id. The apps are listed on the Apps page.")
        }
        return app
    }

    private func page(_ app: RegisteredApp, viewer: DashboardViewer, error: String?, status: HTTPResponseStatus) throws -> Response {
        let id = try app.storedID.uuidString.lowercased()
        return DashboardLayout.page("Change \(app.name)", signedIn: viewer, status: status) {
            AppForm.body(app, id: id, viewer: viewer, error: error)
        }
    }

    /// The form's logout method (nil when not sent); a value that is not one is refused by name.
    static func logoutMethod(_ text: String?) throws -> LogoutMethod? {
        guard let text, !text.isEmpty else { return nil }
        guard let method = LogoutMethod(rawValue: text) else {
            throw DomainError.invalid("logoutMethod", "'\(text.prefix(40))' is not one of " + LogoutMethod.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return method
    }

    @Sendable func editForm(_ request: Request) async throws -> Response {
        try await auth.signedIn(request, needs: .admin) { viewer in
            try page(try await app(request), viewer: viewer, error: nil, status: .ok)
        }
    }

    @Sendable func edit(_ request: Request) async throws -> Response {
        try await auth.signedIn(request, needs: .admin) { viewer in
            try DashboardAuth.checkCSRF(request, expected: viewer.csrfToken)
            let app = try await app(request)
            func field(_ name: String) -> String? { (try? request.content.get(String.self, at: name))?.trimmingCharacters(in: .whitespacesAndNewlines) }
            var change = AppRegistrar.Change()
            do {
                change.logoutMethod = try Self.logoutMethod(field("logoutMethod"))
            } catch let error as DomainError {
                return try page(app, viewer: viewer, error: error.reason, status: .unprocessableEntity)
            }
            change.logoutAction = field("logoutAction")
            for (name, path) in [("deadlineSeconds", \AppRegistrar.Change.deadlineSeconds), ("maxReissues", \.maxReissues)] {
                guard let text = field(name), !text.isEmpty else { continue }
                guard let value = Int(text) else {
                    return try page(app, viewer: viewer, error: "\(name): '\(text)' is not a whole number", status: .unprocessableEntity)
                }
                change[keyPath: path] = value
            }
            change.backchannelLogoutURI = field("backchannelLogoutURI")
            change.backchannelLogoutSessionRequired = field("backchannelLogoutSessionRequired") == "1"
            do {
                try await appRegistrar().update(app, with: change, on: auth.databases.primary)
                try await auth.recordAdminAction(.appChanged, "changed \(app.name)'s logout settings", viewer: viewer, now: auth.clock.now())
            } catch {
                guard let refusal = APIError.refusal(error) else { throw error }
                return try page(app, viewer: viewer, error: refusal.reason, status: refusal.status)
            }
            return DashboardLayout.redirect("/dashboard/apps")
        }
    }

    @Sendable func remove(_ request: Request) async throws -> Response {
        try await auth.signedIn(request, needs: .admin) { viewer in
            try DashboardAuth.checkCSRF(request, expected: viewer.csrfToken)
            let app = try await app(request)
            try await app.remove(on: auth.databases.primary)
            associationFiles.invalidate()
            try await auth.recordAdminAction(.appChanged, "removed \(app.name)", viewer: viewer, now: auth.clock.now())
            return DashboardLayout.redirect("/dashboard/apps")
        }
    }
}
