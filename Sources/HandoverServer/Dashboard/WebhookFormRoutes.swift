import Foundation
import HandoverCore
import HandoverPages
import HandoverSchema
import Vapor

/// The dashboard's webhook forms (issue 39): subscribe a receiver to events and rotate its
/// signing secret, each secret shown once. Admins only; the same checks and sentences as
/// `POST /api/v1/webhooks` and `…/rotate-secret`, through ``HandoverCore/WebhookRegistrar``.
struct WebhookFormRoutes: RouteCollection {
    let auth: DashboardAuth
    let registrar: WebhookRegistrar

    func boot(routes: RoutesBuilder) throws {
        let webhooks = routes.grouped("dashboard", "webhooks")
        webhooks.post(use: create)
        webhooks.post(":webhookID", "rotate-secret", use: rotate)
    }

    private static func secretPage(_ title: String, viewer: DashboardViewer, hook: Webhook, secret: String, status: HTTPResponseStatus) -> Response {
        DashboardLayout.page(title, signedIn: viewer, status: status) { WebhookForm.secret(hook, secret: secret) }
    }

    @Sendable func create(_ request: Request) async throws -> Response {
        try await auth.signedIn(request, needs: .admin) { viewer in
            try DashboardAuth.checkCSRF(request, expected: viewer.csrfToken)
            let url = ((try? request.content.get(String.self, at: "url")) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            let events = (try? request.content.get([String].self, at: "events")) ?? []
            do {
                let (hook, secret) = try await registrar.create(url: url, events: events, secret: nil, on: auth.databases.primary)
                try await auth.recordAdminAction(.webhookChanged, "added \(hook.url)", viewer: viewer, now: auth.clock.now())
                return Self.secretPage("Webhook added", viewer: viewer, hook: hook, secret: secret, status: .created)
            } catch let error as DomainError {
                return DashboardLayout.page("Add a webhook", signedIn: viewer, status: .unprocessableEntity) {
                    WebhookForm.form(csrf: viewer.csrfToken, url: url, events: Set(events), error: error.reason)
                }
            }
        }
    }

    @Sendable func rotate(_ request: Request) async throws -> Response {
        try await auth.signedIn(request, needs: .admin) { viewer in
            try DashboardAuth.checkCSRF(request, expected: viewer.csrfToken)
            guard let text = request.parameters.get("webhookID"), let id = UUID(uuidString: text),
                  let hook = try await Webhook.stored(id, on: auth.databases.primary) else {
                throw DashboardError.notFound("No webhook has this id.")
            }
            let secret = try await registrar.rotateSecret(of: hook, to: nil, on: auth.databases.primary)
            try await auth.recordAdminAction(.webhookChanged, "rotated the secret of \(hook.url)", viewer: viewer, now: auth.clock.now())
            return Self.secretPage("New signing secret", viewer: viewer, hook: hook, secret: secret, status: .ok)
        }
    }
}
