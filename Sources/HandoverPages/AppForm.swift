import Foundation
import HandoverCore
import HandoverProtocol
import HandoverSchema

/// The page that changes a registered app (`/dashboard/apps/{id}/edit`, issue 39, admins only):
/// its logout settings and its backend's Back-Channel Logout URI, and the form that removes it.
package enum AppForm {
    /// The forms for `app`, with `error` (a refusal of the last change) above them.
    @HTMLBuilder
    package static func body(_ app: RegisteredApp, id: String, viewer: DashboardViewer, error: String?) -> HTML {
        HTML.element("section") {
            if let error { HTML.element("p", ["class": "error", "id": "error"]) { error } }
            HTML.element("form", ["method": "post", "action": "/dashboard/apps/\(id)/edit", "class": "stack", "id": "app-form"]) {
                DashboardLayout.csrfField(viewer.csrfToken)
                if app.role == .target {
                    HTML.element("label") {
                        "Logout method"
                        HTML.element("select", ["name": "logoutMethod"]) { logoutMethodOptions(selected: app.logoutMethod ?? .ulc) }
                    }
                    HTML.element("label") { "Logout action (empty for backend-only)"
                        HTML.element("input", ["type": "text", "name": "logoutAction", "value": app.logoutAction ?? ""]) }
                }
                HTML.element("label") { "Deadline, seconds"
                    HTML.element("input", ["type": "number", "name": "deadlineSeconds", "value": String(app.deadlineSeconds)]) }
                HTML.element("label") { "Reissues after a missed deadline"
                    HTML.element("input", ["type": "number", "name": "maxReissues", "value": String(app.maxReissues)]) }
                HTML.element("label") { "Backend's Back-Channel Logout URI (empty for none)"
                    HTML.element("input", ["type": "url", "name": "backchannelLogoutURI", "value": app.backchannelLogoutURI ?? ""]) }
                HTML.element("label") {
                    HTML.element("input", ["type": "checkbox", "name": "backchannelLogoutSessionRequired", "value": "1",
                                           "checked": app.backchannelLogoutSessionRequired == true ? "" : nil])
                    " the backend needs sid in logout tokens"
                }
                HTML.element("button", ["type": "submit"]) { "Save" }
            }
        }
        HTML.element("section") {
            HTML.element("form", ["method": "post", "action": "/dashboard/apps/\(id)/remove", "class": "stack", "id": "remove-app"]) {
                DashboardLayout.csrfField(viewer.csrfToken)
                HTML.element("p", ["class": "note"]) { "Removing the app takes it out of the registry and the association files; runs already started keep their items." }
                HTML.element("button", ["type": "submit"]) { "Remove \(app.name)" }
            }
        }
    }

    /// The logout method's choices, `selected` chosen.
    package static func logoutMethodOptions(selected: LogoutMethod) -> HTML {
        .join(LogoutMethod.allCases.map { method in
            HTML.element("option", ["value": method.rawValue, "selected": selected == method ? "" : nil]) { method.rawValue }
        })
    }
}
