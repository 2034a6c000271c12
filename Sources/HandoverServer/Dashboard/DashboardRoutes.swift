import Foundation
import HandoverCore
import HandoverProtocol
import LinkCallbacks
import UniversalLinks
import HandoverPages
import Vapor

/// The dashboard at `/dashboard`: devices with their last run, runs updating live, apps with
/// the association-file preview and its findings, and webhook deliveries. Server-rendered HTML
/// with a few lines of JavaScript for the live blocks (SSE). Sign in through the organisation's
/// provider, or with a key of a person or service (its role is the session's).
struct DashboardRoutes: RouteCollection {
    let auth: DashboardAuth
    let origin: PublicOrigin
    let hub: RunEventHub
    /// The overview's live updates, shared by every open dashboard.
    let overviewUpdates: LiveOverviews
    /// Whether the association files claim the email sign-in link's path.
    let claimsEmailSignIn: Bool
    /// Registers apps (built when asked: it reads the public origin, known once the port is bound).
    let appRegistrar: @Sendable () -> AppRegistrar
    /// The lending periods, for the overview's devices held too long.
    let custody: CustodySettings
    /// Wrong admin keys at the sign-in form count as wrong API keys (``RateLimits/Policy/wrongAPIKey``).
    let throttle: Throttle

    func boot(routes: RoutesBuilder) throws {
        let dashboard = routes.grouped("dashboard")
        dashboard.get(use: overview)
        dashboard.get("sign-in", use: signInForm)
        dashboard.post("sign-in", use: signIn)
        dashboard.post("sign-out", use: signOut)
        dashboard.get("live", use: liveOverview)
        dashboard.get("apps", use: apps)
        dashboard.post("apps", use: createApp)
        dashboard.get("webhooks", use: webhooks)
    }

    // MARK: Signing in

    @Sendable func signInForm(_ request: Request) async throws -> Response {
        if try await auth.session(request) != nil { return DashboardLayout.redirect("/dashboard") }
        return signInPage(request, message: nil, status: .ok)
    }

    func signInPage(_ request: Request, message: String?, status: HTTPResponseStatus) -> Response {
        let token = BearerSecret.random()
        let response = DashboardLayout.page("Sign in", signedIn: nil, status: status) {
            HTML.element("section") {
                if let message { HTML.element("p", ["class": "error"]) { message } }
                if auth.provider != nil {
                    HTML.element("p") {
                        HTML.element("a", ["class": "button", "href": "/dashboard/sign-in/provider"]) { "Sign in with your organisation" }
                    }
                }
                if auth.allowsKeySignIn {
                    if auth.provider != nil {
                        HTML.element("p", ["class": "note"]) { "Break-glass: an admin key also opens the dashboard here; each use is recorded." }
                    }
                    HTML.element("form", ["method": "post", "action": "/dashboard/sign-in", "class": "stack"]) {
                        DashboardLayout.csrfField(token)
                        HTML.element("label") {
                            auth.provider == nil ? "API key (admin, operator or viewer)" : "Admin key"
                            HTML.element("input", ["type": "password", "name": "key", "autocomplete": "off", "required": "",
                                                   "placeholder": "hov_…"])
                        }
                        HTML.element("button", ["type": "submit"]) { "Sign in" }
                    }
                    HTML.element("p", ["class": "note"]) {
                        "A key opens the dashboard with its role: make one on the Keys page, or with "
                            + "`handover admin create-key --scope admin|operator|viewer`. The key is not stored in the browser. "
                            + "A session ends after \(Int(auth.sessions.limits.idle / 60)) minutes without a request, "
                            + "and \(Int(auth.sessions.limits.absolute / 3600)) hours after sign-in."
                    }
                }
            }
        }
        response.cookies[DashboardAuth.signInCookie] = DashboardAuth.cookie(token, secure: origin.isSecure, maxAge: 3600)
        return response
    }

    @Sendable func signIn(_ request: Request) async throws -> Response {
        guard auth.allowsKeySignIn else {
            return signInPage(request, message: "Admin keys do not open the dashboard while an identity provider is configured "
                              + "(start the server with --allow-key-sign-in for break-glass). Sign in with your organisation.",
                              status: .forbidden)
        }
        do {
            try DashboardAuth.checkCSRF(request, expected: request.cookies[DashboardAuth.signInCookie]?.string)
        } catch let error as DashboardError {
            return DashboardLayout.errorPage(error, signedIn: nil)
        }
        let key = (try? request.content.get(String.self, at: "key")) ?? ""
        guard let (token, _) = try await auth.signIn(key: key, request: request) else {
            // Counted once found wrong: the right key signs in whatever its address sent before.
            guard let wait = throttle.attempt(.wrongAPIKey, request) else {
                return signInPage(request, message: auth.provider == nil ? "That is not a valid admin, operator or viewer key."
                                  : "That is not a valid admin key.", status: .unauthorized)
            }
            let response = signInPage(request, message: "Too many wrong keys from this address; try again in \(wait) seconds.",
                                      status: .tooManyRequests)
            response.headers.replaceOrAdd(name: .retryAfter, value: String(wait))
            return response
        }
        let response = DashboardLayout.redirect("/dashboard")
        response.cookies[DashboardAuth.sessionCookie] = auth.sessionCookie(token)
        response.cookies[DashboardAuth.signInCookie] = DashboardAuth.cookie("", secure: origin.isSecure, maxAge: 0)
        return response
    }

    /// Ends this browser's session; for a person, also at the provider when it publishes an
    /// `end_session_endpoint` (RP-Initiated Logout 1.0 §2), coming back to the sign-in page.
    @Sendable func signOut(_ request: Request) async throws -> Response {
        try await auth.signedIn(request) { viewer in
            try DashboardAuth.checkCSRF(request, expected: viewer.csrfToken)
            try await auth.sessions.end(viewer.session, on: auth.databases.primary)
            let who = try await auth.actor(of: viewer)
            try await AdminEvent(at: auth.clock.now(), kind: .signedOut, personID: viewer.personID,
                                       who: who.replacingOccurrences(of: " on the dashboard", with: ""), detail: "this browser").record(on: auth.databases.primary)
            var destination = "/dashboard/sign-in"
            if viewer.personID != nil, let provider = auth.provider,
               let url = await provider.provider.endSessionURL(idTokenHint: viewer.session.idToken,
                                                               postLogoutRedirectURI: origin.url.absoluteString + "/dashboard/sign-in") {
                destination = url.absoluteString
            }
            let response = DashboardLayout.redirect(destination)
            response.cookies[DashboardAuth.sessionCookie] = DashboardAuth.cookie("", secure: origin.isSecure, maxAge: 0)
            return response
        }
    }

    // MARK: Overview

    @Sendable func overview(_ request: Request) async throws -> Response {
        try await auth.signedIn(request) { viewer in
            let fragment = try await overviewFragment(sites: viewer.siteFilter)
            return DashboardLayout.page("Fleet", signedIn: viewer) {
                DashboardLayout.live(id: "overview", source: "/dashboard/live") { fragment }
            }
        }
    }

    /// The overview's live updates: the sections that changed, rendered once a second at most
    /// for every open dashboard together (``LiveOverview``).
    @Sendable func liveOverview(_ request: Request) async throws -> Response {
        guard let session = try await auth.session(request) else { throw Abort(.unauthorized) }
        let routes = self
        let hub = hub
        let sites = session.siteFilter
        let stream = overviewUpdates.overview(for: sites).subscribe(changes: { hub.subscribeToEverything() }) {
            try await routes.overviewSections(sites: sites)
        }
        return EventStream.response(broadcast: stream, lease: try auth.streamLease(for: session, request))
    }

    /// The overview: the queue of devices that need attention (at most 50 shown), the devices
    /// by status, and the last 10 runs (``HandoverCore/FleetOverview``).
    func overviewFragment(sites: SiteFilter) async throws -> HTML {
        .join(try await overviewSections(sites: sites).map { .raw($0.html) })
    }

    /// The overview's blocks, each an element with its own `id` (live updates replace one at a time).
    func overviewSections(sites: SiteFilter) async throws -> [LiveOverview.Section] {
        let overview = try await FleetOverview.load(sites: sites, custody: custody, now: auth.clock.now(), on: auth.databases.reads)
        let (counts, total, listed, queue, queueTotal) = (overview.counts, overview.total, overview.listed, overview.queue, overview.queueTotal)
        let (runs, overruns, itemsByRun, backends) = (overview.recentRuns, overview.overruns, overview.itemsByRun, overview.backends)
        let (runByID, deviceNames) = (overview.runByID, overview.deviceNames)
        let sections: [(id: String, html: HTML)] = [
            ("attention", .element("section", ["id": "attention"]) {
                HTML.element("h2") { "Needs attention (\(queueTotal))" }
                if queue.isEmpty {
                    HTML.element("p", ["class": "note"]) { "No device is out of service or overdue." }
                } else {
                    HTML.element("div", ["class": "scroll"]) {
                        HTML.element("table") {
                            HTML.element("tr") { HTML.element("th") { "Device" }; HTML.element("th") { "Status" }; HTML.element("th") { "Since" }; HTML.element("th") { "Why" } }
                            for device in queue.sorted(by: { ($0.statusChangedAt ?? $0.createdAt) < ($1.statusChangedAt ?? $1.createdAt) }) {
                                HTML.element("tr") {
                                    HTML.element("td") { DashboardLinks.device(device) }
                                    HTML.element("td") { DashboardLayout.badge(device.status) }
                                    HTML.element("td") { DashboardLayout.time(device.statusChangedAt) }
                                    HTML.element("td") { device.statusReason ?? "—" }
                                }
                            }
                        }
                    }
                    if queueTotal > queue.count {
                        HTML.element("p") {
                            HTML.element("a", ["href": "/dashboard/devices?filter=out-of-service"]) { "All \(counts[.outOfService] ?? 0) out of service" }
                            " · "
                            HTML.element("a", ["href": "/dashboard/devices?filter=overdue"]) { "all \(counts[.overdue] ?? 0) overdue" }
                        }
                    }
                }
            }),
            (LendingSection.id, LendingSection.html(overruns, settings: custody)),
            ("fleet", .element("section", ["id": "fleet"]) {
                HTML.element("h2") { "Devices (\(total))" }
                if total == 0 {
                    HTML.element("p", ["class": "note"]) { "No devices yet. Register one with POST /api/v1/devices, or run `handover demo`." }
                } else {
                    HTML.element("p", ["class": "counts"]) {
                        for status in DeviceStatus.allCases {
                            HTML.element("a", ["href": "/dashboard/devices?status=\(status.rawValue)"]) {
                                DashboardLayout.badge(status); " \(counts[status] ?? 0)"
                            }
                            " "
                        }
                        HTML.element("a", ["href": "/dashboard/devices"]) { "Search the devices →" }
                    }
                }
                if !listed.isEmpty {
                    HTML.element("div", ["class": "scroll"]) {
                        HTML.element("table") {
                            HTML.element("tr") { HTML.element("th") { "Device" }; HTML.element("th") { "Status" }; HTML.element("th") { "Last run" }; HTML.element("th") { "Apps" } }
                            for device in listed {
                                let last = device.lastRunID.flatMap { runByID[$0] }
                                HTML.element("tr") {
                                    HTML.element("td") { DashboardLinks.device(device) }
                                    HTML.element("td") { DashboardLayout.badge(device.status) }
                                    HTML.element("td") {
                                        if let last { DashboardLayout.badge(last.status); " "; DashboardLayout.time(last.createdAt) } else { "never" }
                                    }
                                    HTML.element("td") { DashboardLinks.itemBadges(last.flatMap { $0.id }.flatMap { itemsByRun[$0] } ?? [], backends: backends) }
                                }
                            }
                        }
                    }
                }
            }),
            ("recent-runs", .element("section", ["id": "recent-runs"]) {
                HTML.element("h2") { "Recent logout runs" }
                if runs.isEmpty {
                    HTML.element("p", ["class": "note"]) { "No runs yet. They appear here live as devices start them." }
                } else {
                    HTML.element("div", ["class": "scroll"]) {
                        HTML.element("table", ["id": "runs"]) {
                            HTML.element("tr") { HTML.element("th") { "Started" }; HTML.element("th") { "Device" }; HTML.element("th") { "Status" }; HTML.element("th") { "Apps" } }
                            for run in runs {
                                HTML.element("tr", ["data-run": run.id?.uuidString.lowercased()]) {
                                    HTML.element("td") {
                                        if let id = run.id {
                                            HTML.element("a", ["href": DashboardLinks.run(id)]) { DashboardLayout.time(run.createdAt) }
                                        } else { DashboardLayout.time(run.createdAt) }
                                    }
                                    HTML.element("td") { deviceNames[run.deviceID] ?? "deleted device" }
                                    HTML.element("td") { DashboardLayout.badge(run.status) }
                                    HTML.element("td") { DashboardLinks.itemBadges(run.id.flatMap { itemsByRun[$0] } ?? [], backends: backends) }
                                }
                            }
                        }
                    }
                }
            }),
        ]
        return sections.map { LiveOverview.Section(id: $0.id, html: $0.html.rendered) }
    }

    // MARK: Apps

    @Sendable func apps(_ request: Request) async throws -> Response {
        try await auth.signedIn(request) { viewer in try await appsPage(request, viewer: viewer, error: nil, status: .ok) }
    }

    private func appsPage(_ request: Request, viewer: DashboardViewer, error: String?, status: HTTPResponseStatus) async throws -> Response {
        let apps = try await RegisteredApp.allByRegistration(on: auth.databases.primary)
        let files = AssociationFiles(publicURL: origin.url, claimsEmailSignIn: claimsEmailSignIn)
        let appleFile = try? files.appleFile(apps: apps)
        let findings = appleFile.map { AssociationValidator.validate(Array($0)) }
        let pretty = appleFile.flatMap { data -> String? in
            guard let object = try? JSONSerialization.jsonObject(with: data),
                  let text = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
            else { return String(data: data, encoding: .utf8) }
            return String(decoding: text, as: UTF8.self)
        }
        return DashboardLayout.page("Apps", signedIn: viewer, status: status) {
            HTML.element("section") {
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
                                HTML.element("td") { HTML.element("code") { Self.callbackHostsText(app.allowedCallbackHosts) } }
                                HTML.element("td") { "\(app.deadlineSeconds) s × \(app.maxReissues + 1)" }
                            }
                        }
                    }
                }
            }
            if viewer.may(.admin) {  // createApp's need
                HTML.element("section") {
                    HTML.element("h2") { "Register an app" }
                    if let error { HTML.element("p", ["class": "error", "id": "form-error"]) { error } }
                    HTML.element("form", ["method": "post", "action": "/dashboard/apps", "class": "stack"]) {
                        DashboardLayout.csrfField(viewer.csrfToken)
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
                            HTML.element("select", ["name": "logoutMethod"]) { AppFormRoutes.logoutMethodOptions(selected: .ulc) }
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
            HTML.element("section") {
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
    }

    /// Callback hosts as stored (ASCII), each internationalised one followed by how it reads in
    /// Unicode, so a person sees both the letters and the `xn--` form a look-alike cannot fake.
    static func callbackHostsText(_ hosts: [String]) -> String {
        guard !hosts.isEmpty else { return "—" }
        return hosts.map { host in
            let unicode = ScriptRestriction.unicodeForm(of: host)
            return unicode == host ? host : "\(host) (\(unicode))"
        }.joined(separator: ", ")
    }

    @Sendable func createApp(_ request: Request) async throws -> Response {
        try await auth.signedIn(request, needs: .admin) { viewer in
            try DashboardAuth.checkCSRF(request, expected: viewer.csrfToken)
            func field(_ name: String) -> String? {
                let value = (try? request.content.get(String.self, at: name))?.trimmingCharacters(in: .whitespacesAndNewlines)
                return value?.isEmpty == false ? value : nil
            }
            func list(_ name: String) -> [String]? {
                field(name).map { $0.split(whereSeparator: { $0 == "," || $0.isNewline || $0 == " " }).map(String.init) }  // isNewline: "\r\n" is one Character
            }
            var numbers: [String: Int] = [:]
            for name in ["deadlineSeconds", "maxReissues"] {
                guard let text = field(name) else { continue }
                guard let value = Int(text) else {
                    return try await appsPage(request, viewer: viewer, error: "\(name): '\(text.prefix(40))' is not a whole number", status: .unprocessableEntity)
                }
                numbers[name] = value
            }
            let target = field("role") != AppRole.launcher.rawValue
            let backchannel = field("backchannelLogoutURI")
            do {
                let input = AppRegistrar.Input(name: field("name") ?? "", role: field("role"), appIDs: list("appIDs") ?? [],
                                               logoutAction: target ? field("logoutAction") : nil,
                                               logoutMethod: target ? try AppFormRoutes.logoutMethod(field("logoutMethod")) : nil,
                                               allowedCallbackHosts: list("allowedCallbackHosts"), deadlineSeconds: numbers["deadlineSeconds"],
                                               maxReissues: numbers["maxReissues"], backchannelLogoutURI: backchannel,
                                               backchannelLogoutSessionRequired: backchannel == nil ? nil : field("backchannelLogoutSessionRequired") == "1")
                let app = try await appRegistrar().create(input, on: auth.databases.primary)
                try await auth.recordAdminAction(.appChanged, "registered \(app.name)", viewer: viewer, now: auth.clock.now())
            } catch {
                guard let refusal = APIError.refusal(error) else { throw error }
                return try await appsPage(request, viewer: viewer, error: refusal.reason, status: refusal.status)
            }
            return DashboardLayout.redirect("/dashboard/apps")
        }
    }

    // MARK: Webhooks

    @Sendable func webhooks(_ request: Request) async throws -> Response {
        try await auth.signedIn(request) { viewer in
            let hooks = try await Webhook.allByRegistration(on: auth.databases.primary)
            let deliveries = try await WebhookDelivery.newest(50, on: auth.databases.primary)
            let urls = Dictionary(uniqueKeysWithValues: hooks.compactMap { hook in hook.id.map { ($0, hook.url) } })
            return DashboardLayout.page("Webhooks", signedIn: viewer) {
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
                        WebhookFormRoutes.form(csrf: viewer.csrfToken)
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
    }
}
