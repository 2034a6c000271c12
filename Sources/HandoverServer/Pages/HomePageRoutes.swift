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
        HomePage.signInWords(hasProvider: dashboardAuth.provider != nil, allowsKeySignIn: dashboardAuth.allowsKeySignIn)
    }

    @Sendable func home(request: Request) async throws -> Response {
        let issuer = sessions.map { $0.ring.issuer }.flatMap { $0.hasPrefix("http") ? $0 : nil }
        let page = HomePage.page(signInWords: signInWords, advertisesOpenID: issuer != nil,
                                 plainHTTPNotice: PublicOrigin.plainHTTPNotice(for: origin.url))
        let response = Response(status: .ok, body: .init(string: page.html))
        response.headers.contentType = .html
        return response
    }
}
