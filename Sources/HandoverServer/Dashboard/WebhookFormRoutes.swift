import Foundation
import HandoverCore
import HandoverPages
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

    /// The form that subscribes a receiver; `error` and the values given come back on a refusal.
    static func form(csrf: String, url: String = "", events: Set<String> = [], error: String? = nil) -> HTML {
        .element("form", ["method": "post", "action": "/dashboard/webhooks", "class": "stack", "id": "webhook-form"]) {
            if let error { HTML.element("p", ["class": "error", "id": "error"]) { error } }
            DashboardLayout.csrfField(csrf)
            HTML.element("label") { "Receiver URL"; HTML.element("input", ["type": "url", "name": "url", "required": "", "value": url,
                                                                            "placeholder": "https://mdm.example.com/hooks/handover"]) }
            HTML.element("fieldset") {
                HTML.element("legend") { "Events" }
                for event in WebhookOutbox.eventTypes {
                    HTML.element("label") {
                        HTML.element("input", ["type": "checkbox", "name": "events[]", "value": event,
                                               "checked": events.contains(event) ? "" : nil])
                        " \(event)"
                    }
                }
            }
            HTML.element("button", ["type": "submit"]) { "Add the webhook" }
        }
    }

    private static func secretPage(_ title: String, viewer: DashboardViewer, hook: Webhook, secret: String, status: HTTPResponseStatus) -> Response {
        DashboardLayout.page(title, signedIn: viewer, status: status) {
            HTML.element("p") { HTML.element("code") { hook.url }; " — "; hook.events.joined(separator: ", ") }
            HTML.element("p") { "Its signing secret, shown only now (Standard Webhooks; the receiver checks each delivery with it):" }
            HTML.element("p") { HTML.element("code", ["id": "webhook-secret"]) { secret } }
            HTML.element("p") { HTML.element("a", ["href": "/dashboard/webhooks"]) { "Back to the webhooks" } }
        }
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
                    Self.form(csrf: viewer.csrfToken, url: url, events: Set(events), error: error.reason)
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
