import Foundation
import HandoverCore

/// The dashboard's sign-in page (`/dashboard/sign-in`): the button to the organisation's
/// identity provider when one is configured, and the key form when keys may open the dashboard
/// (break-glass beside a provider, or the only way without one), with how long a session lasts.
package enum SignInPage {
    /// The page's body; `message` is why the last attempt failed, `csrfToken` the token the
    /// browser's sign-in cookie carries.
    package static func body(message: String?, csrfToken: String, hasProvider: Bool, allowsKeySignIn: Bool, limits: SessionLimits) -> HTML {
        .element("section") {
            if let message { HTML.element("p", ["class": "error"]) { message } }
            if hasProvider {
                HTML.element("p") {
                    HTML.element("a", ["class": "button", "href": "/dashboard/sign-in/provider"]) { "Sign in with your organisation" }
                }
            }
            if allowsKeySignIn {
                if hasProvider {
                    HTML.element("p", ["class": "note"]) { "Break-glass: an admin key also opens the dashboard here; each use is recorded." }
                }
                HTML.element("form", ["method": "post", "action": "/dashboard/sign-in", "class": "stack"]) {
                    DashboardLayout.csrfField(csrfToken)
                    HTML.element("label") {
                        hasProvider ? "Admin key" : "API key (admin, operator or viewer)"
                        HTML.element("input", ["type": "password", "name": "key", "autocomplete": "off", "required": "",
                                               "placeholder": "hov_…"])
                    }
                    HTML.element("button", ["type": "submit"]) { "Sign in" }
                }
                HTML.element("p", ["class": "note"]) {
                    "A key opens the dashboard with its role: make one on the Keys page, or with "
                        + "`handover admin create-key --scope admin|operator|viewer`. The key is not stored in the browser. "
                        + "A session ends after \(Int(limits.idle / 60)) minutes without a request, "
                        + "and \(Int(limits.absolute / 3600)) hours after sign-in."
                }
            }
        }
    }
}
