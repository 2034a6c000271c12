import Foundation
import HandoverCore
import HandoverProtocol
import HandoverSchema
import LinkCallbacks
import UniversalLinks

/// The dashboard's apps page (`/dashboard/apps`): the registered apps (role, app IDs, logout
/// action and method, callback hosts, deadline), the form that registers one for an admin, and a
/// preview of the `apple-app-site-association` file they make, with the validator's findings.
package enum AppsPage {
    /// The page's body; `appleFile` is the association file the apps make (nil: none is served),
    /// `error` why the last registration was refused.
    @HTMLBuilder
    package static func body(_ apps: [RegisteredApp], appleFile: Data?, viewer: DashboardViewer, error: String?) -> HTML {
        table(apps, viewer: viewer)
        if viewer.may(.admin) {  // createApp's need
            registerForm(csrf: viewer.csrfToken, error: error)
        }
        preview(appleFile)
    }

    /// The registered apps, with a link to change each for an admin.
    package static func table(_ apps: [RegisteredApp], viewer: DashboardViewer) -> HTML {
        .element("section") {
            HTML.element("h2") { "Registered apps (\(apps.count))" }
            HTML.element("div", ["class": "scroll"]) {
                HTML.element("table", ["id": "apps"]) {
                    HTML.element("tr") { HTML.element("th") { "Name" }; HTML.element("th") { "Role" }; HTML.element("th") { "App IDs" }; HTML.element("th") { "Logout action" }; HTML.element("th") { "Callback hosts" }; HTML.element("th") { "Deadline" } }
                    for app in apps {
                        HTML.element("tr") {
                            HTML.element("td") {
                                app.name
                                if let id = app.id, viewer.may(.admin) {
                                    " "; HTML.element("a", ["href": "/dashboard/apps/\(id.uuidString.lowercased())/edit"]) { "change" }
                                }
                            }
                            HTML.element("td") { app.role.rawValue }
                            HTML.element("td") { HTML.element("code") { app.appIDs.joined(separator: " ") } }
                            HTML.element("td") {
                                HTML.element("code") { app.logoutAction ?? "—" }
                                if app.role == .target {
                                    " "
                                    switch app.logoutMethod ?? .ulc {
                                    case .ulc: DashboardLayout.badge("ULC", .muted)
                                    // iOS asks the person before opening a custom scheme.
                                    case .xCallback: DashboardLayout.badge("x-callback: a tap", .wait)
                                    case .backendOnly: DashboardLayout.badge("backend-only", .muted)
                                    }
                                }
                            }
                            HTML.element("td") { HTML.element("code") { callbackHostsText(app.allowedCallbackHosts) } }
                            HTML.element("td") { "\(app.deadlineSeconds) s × \(app.maxReissues + 1)" }
                        }
                    }
                }
            }
        }
    }

    /// The form that registers an app, with the last refusal above it.
    package static func registerForm(csrf: String, error: String?) -> HTML {
        .element("section") {
            HTML.element("h2") { "Register an app" }
            if let error { HTML.element("p", ["class": "error", "id": "form-error"]) { error } }
            HTML.element("form", ["method": "post", "action": "/dashboard/apps", "class": "stack"]) {
                DashboardLayout.csrfField(csrf)
                HTML.element("label") { "Name"; HTML.element("input", ["type": "text", "name": "name", "required": "", "placeholder": "mail"]) }
                HTML.element("label") {
                    "Role"
                    HTML.element("select", ["name": "role"]) {
                        HTML.element("option", ["value": AppRole.target.rawValue]) { "target: an app the launcher logs out" }
                        HTML.element("option", ["value": AppRole.launcher.rawValue]) { "launcher: receives the callbacks" }
                    }
                }
                HTML.element("label") { "App IDs (TEAMID.bundle.id, comma-separated)"; HTML.element("input", ["type": "text", "name": "appIDs", "required": "", "placeholder": "ABCDE12345.com.example.mail"]) }
                HTML.element("label") {
                    "Logout method (targets)"
                    HTML.element("select", ["name": "logoutMethod"]) { AppForm.logoutMethodOptions(selected: .ulc) }
                }
                HTML.element("label") { "Logout action URL (targets; empty for backend-only)"; HTML.element("input", ["type": "text", "name": "logoutAction", "maxlength": String(LogoutActionRule.maximumLength), "placeholder": "https://mail.example.com/ulc/logout"]) }
                HTML.element("label") { "Allowed callback hosts (comma-separated, optional)"; HTML.element("input", ["type": "text", "name": "allowedCallbackHosts"]) }
                HTML.element("label") { "Deadline in seconds"; HTML.element("input", ["type": "text", "name": "deadlineSeconds", "value": "20", "inputmode": "numeric"]) }
                HTML.element("label") { "Reissues after a missed deadline (empty: the default)"; HTML.element("input", ["type": "text", "name": "maxReissues", "inputmode": "numeric"]) }
                HTML.element("label") { "Backend's Back-Channel Logout URI (optional)"; HTML.element("input", ["type": "url", "name": "backchannelLogoutURI"]) }
                HTML.element("label", ["class": "check"]) {
                    HTML.element("input", ["type": "checkbox", "name": "backchannelLogoutSessionRequired", "value": "1"])
                    "the backend needs sid in logout tokens"
                }
                HTML.element("button", ["type": "submit"]) { "Register" }
            }
        }
    }

    /// The association file as served, pretty-printed, with the validator's findings; or why
    /// none is served.
    package static func preview(_ appleFile: Data?) -> HTML {
        let findings = appleFile.map { AssociationValidator.validate(Array($0)) }
        let pretty = appleFile.flatMap { data -> String? in
            guard let object = try? JSONSerialization.jsonObject(with: data),
                  let text = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
            else { return String(data: data, encoding: .utf8) }
            return String(decoding: text, as: UTF8.self)
        }
        return .element("section") {
            HTML.element("h2") { "apple-app-site-association preview" }
            if let pretty, let findings {
                HTML.element("p") {
                    "Served at "
                    HTML.element("a", ["href": "/.well-known/apple-app-site-association"]) { "/.well-known/apple-app-site-association" }
                    ". Validator: "
                    if findings.issues.isEmpty { DashboardLayout.badge("ok", .good); " no findings" }
                    else { "\(findings.errors.count) error(s), \(findings.warnings.count) warning(s)" }
                }
                if !findings.issues.isEmpty {
                    HTML.element("ul", ["id": "findings"]) { for issue in findings.issues { HTML.element("li") { issue.description } } }
                }
                HTML.element("pre", ["id": "aasa"]) { pretty }
            } else {
                HTML.element("p", ["class": "note"]) { "No launcher and no app with associated paths is registered, so the file is empty and not served (404). Register a launcher to claim this server's callback paths." }
            }
        }
    }

    /// Callback hosts as stored (ASCII), each internationalised one followed by how it reads in
    /// Unicode, so a person sees both the letters and the `xn--` form a look-alike cannot fake.
    package static func callbackHostsText(_ hosts: [String]) -> String {
        guard !hosts.isEmpty else { return "—" }
        return hosts.map { host in
            let unicode = ScriptRestriction.unicodeForm(of: host)
            return unicode == host ? host : "\(host) (\(unicode))"
        }.joined(separator: ", ")
    }
}
