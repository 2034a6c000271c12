import HandoverProtocol
import SessionTokens
import HandoverPages
import Vapor

/// `GET /`: a person who opens the server's address in a browser (after `handover serve`, say)
/// lands on a page that says what this is and leads on, not on a JSON 404.
struct HomePageRoutes: RouteCollection {
    /// The server's own sessions, when on: the home page names their issuer.
    let sessions: SessionAuthority?
    /// Where devices reach the server: a plain-http one is said to be so.
    let origin: PublicOrigin
    /// How the dashboard signs people in: the home page says so (the organisation's provider, or keys).
    let dashboardAuth: DashboardAuth

    func boot(routes: RoutesBuilder) throws {
        routes.get(use: home)
    }

    /// How a person signs in to the dashboard, in words.
    var signInWords: String {
        guard dashboardAuth.provider != nil else { return "sign in with an API key (admin, operator or viewer)" }
        return "sign in with your organisation's account (its identity provider)"
            + (dashboardAuth.allowsKeySignIn ? "; an admin key opens it too, as break-glass" : "")
    }

    @Sendable func home(request: Request) async throws -> Response {
        let issuer = sessions.map { $0.ring.issuer }.flatMap { $0.hasPrefix("http") ? $0 : nil }
        let links: [(String, String, String)] = [
            ("/dashboard/sign-in", "Dashboard", "devices, logout runs, apps, webhooks and keys; " + signInWords),
            ("/tester", "ULC conformance tester", "check that an app logs out and calls back as the ULC specification asks"),
            ("/openapi.yaml", "API description", "the JSON API for launchers, IT tools and MDM, as OpenAPI 3"),
            ("/.well-known/apple-app-site-association", "Association file", "the universal links this server's apps claim"),
        ] + (issuer == nil ? [] : [("/.well-known/openid-configuration", "OpenID Connect", "discovery for your backends: keys, introspection, revocation, back-channel logout")])
        let notice = PublicOrigin.plainHTTPNotice(for: origin.url)
        let page = HTMLPage(
            title: "Handover", heading: "Handover",
            paragraphs: ["This server signs shared phones' apps out when the phone changes hands, and shows IT that it happened for every device."],
            extra: .join([
                notice.map { text in .element("p", ["id": "plain-http", "class": "error", "role": "note"]) { text } } ?? .empty,
                .element("ul") {
                    for (path, name, what) in links {
                        HTML.element("li") { HTML.element("a", ["href": path]) { name }; ": "; what }
                    }
                },
                .element("p", ["id": "version", "class": "note"]) { "Handover \(HandoverVersion.current)" },
            ]))
        let response = Response(status: .ok, body: .init(string: page.html))
        response.headers.contentType = .html
        return response
    }
}
