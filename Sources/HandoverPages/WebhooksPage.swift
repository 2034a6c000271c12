import Foundation
import HandoverCore
import HandoverSchema

/// The dashboard's webhooks page (`/dashboard/webhooks`): the endpoints and their events (with
/// a form to rotate each one's secret, and the form that adds one, for an admin), and the latest
/// deliveries with their state and last answer.
package enum WebhooksPage {
    /// The page's body: `hooks` in registration order, `deliveries` newest first.
    @HTMLBuilder
    package static func body(_ hooks: [Webhook], deliveries: [WebhookDelivery], viewer: DashboardViewer) -> HTML {
        let urls = Dictionary(hooks.compactMap { hook in hook.id.map { ($0, hook.url) } }, uniquingKeysWith: { first, _ in first })
        HTML.element("section") {
            HTML.element("h2") { "Endpoints (\(hooks.count))" }
            if hooks.isEmpty { HTML.element("p", ["class": "note"]) { "None yet." } }
            let admin = viewer.may(.admin)
            for hook in hooks {
                HTML.element("p") {
                    HTML.element("code") { hook.url }; " — "; hook.events.joined(separator: ", ")
                    if admin, let id = hook.id {
                        " "
                        HTML.element("form", ["method": "post", "action": "/dashboard/webhooks/\(id.uuidString.lowercased())/rotate-secret",
                                              "class": "inline"]) {
                            DashboardLayout.csrfField(viewer.csrfToken)
                            HTML.element("button", ["type": "submit", "class": "link"]) { "Rotate its secret" }
                        }
                    }
                }
            }
            if admin {
                HTML.element("h2") { "Add a webhook" }
                WebhookForm.form(csrf: viewer.csrfToken)
            }
        }
        HTML.element("section") {
            HTML.element("h2") { "Recent deliveries" }
            HTML.element("div", ["class": "scroll"]) {
                HTML.element("table") {
                    HTML.element("tr") { HTML.element("th") { "Created" }; HTML.element("th") { "Event" }; HTML.element("th") { "Endpoint" }; HTML.element("th") { "Status" }; HTML.element("th") { "Attempts" }; HTML.element("th") { "Last answer" } }
                    for delivery in deliveries {
                        HTML.element("tr") {
                            HTML.element("td") { DashboardLayout.time(delivery.createdAt) }
                            HTML.element("td") { delivery.event }
                            HTML.element("td") { HTML.element("code") { urls[delivery.webhookID] ?? "?" } }
                            HTML.element("td") { DashboardLayout.badge(delivery.status) }
                            HTML.element("td") { String(delivery.attempts) }
                            HTML.element("td") { delivery.lastStatusCode.map { "HTTP \($0)" } ?? delivery.lastError ?? "—" }
                        }
                    }
                }
            }
        }
    }
}
