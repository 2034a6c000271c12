import Foundation
import HandoverCore
import HandoverSchema

/// The dashboard's webhook forms (issue 39, admins only): the form that subscribes a receiver to
/// events, and the page that shows a receiver's signing secret once, after it is added or its
/// secret rotated.
package enum WebhookForm {
    /// The form that subscribes a receiver; `error` and the values given come back on a refusal.
    package static func form(csrf: String, url: String = "", events: Set<String> = [], error: String? = nil) -> HTML {
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

    /// `hook`'s URL and events, and its signing `secret`, shown only now.
    @HTMLBuilder
    package static func secret(_ hook: Webhook, secret: String) -> HTML {
        HTML.element("p") { HTML.element("code") { hook.url }; " — "; hook.events.joined(separator: ", ") }
        HTML.element("p") { "Its signing secret, shown only now (Standard Webhooks; the receiver checks each delivery with it):" }
        HTML.element("p") { HTML.element("code", ["id": "webhook-secret"]) { secret } }
        HTML.element("p") { HTML.element("a", ["href": "/dashboard/webhooks"]) { "Back to the webhooks" } }
    }
}
