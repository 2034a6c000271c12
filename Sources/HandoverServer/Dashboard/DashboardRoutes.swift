import Foundation
import HandoverCore
import HandoverProtocol
import HandoverPages
import HandoverSchema
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
            SignInPage.body(message: message, csrfToken: token, hasProvider: auth.provider != nil, allowsKeySignIn: auth.allowsKeySignIn,
                            limits: auth.sessions.limits)
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
        let sections = OverviewPage.sections(overview, custody: custody)
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
        return DashboardLayout.page("Apps", signedIn: viewer, status: status) {
            AppsPage.body(apps, appleFile: appleFile, viewer: viewer, error: error)
        }
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
            return DashboardLayout.page("Webhooks", signedIn: viewer) {
                WebhooksPage.body(hooks, deliveries: deliveries, viewer: viewer)
            }
        }
    }
}
