import Foundation
import HandoverCore
import HandoverProtocol
import HandoverPages
import Vapor

/// `GET /ulc/cb/<run>/<item>/<success|error>?n=<nonce>`: the browser fallback for a callback.
///
/// When the launcher does not claim the callback link (or the user once chose "Open in Safari"),
/// the app's callback opens this page instead. It records the outcome exactly as the launcher's
/// report would, and tells the person what happened.
struct CallbackPageRoutes: RouteCollection {
    let commits: RunCommits

    func boot(routes: RoutesBuilder) throws {
        routes.grouped(CallbackURL.pathPrefix.map { PathComponent(stringLiteral: $0) }).get(":runID", ":itemID", ":outcome", use: callback)
    }

    @Sendable func callback(_ request: Request) async throws -> Response {
        guard let run = request.parameters.get("runID", as: UUID.self), let item = request.parameters.get("itemID", as: UUID.self),
              let outcome = request.parameters.get("outcome").flatMap(CallbackOutcome.init(rawValue:)),
              let nonce = CallbackURL.nonce(inQuery: request.url.query) else {
            return Self.page(.notFound, CallbackPage.malformed)
        }
        let callback = LogoutRunService.Callback(run: run, item: item, outcome: outcome, nonce: nonce, reportedBy: .browser)
        switch try await commits.record(callback, on: request.application) {
        case .recorded(let app, .success):
            return Self.page(.ok, CallbackPage.signedOut(app))
        case .recorded(let app, .error):
            return Self.page(.ok, CallbackPage.signOutFailed(app))
        case .alreadyRecorded(let app, let status):
            return Self.page(.conflict, CallbackPage.alreadyRecorded(app, status: status))
        case .unknown:
            return Self.page(.notFound, CallbackPage.unknown)
        }
    }

    /// `page` as an HTML response with `status`, never cached, sending no referrer.
    static func page(_ status: HTTPResponseStatus, _ page: HTMLPage) -> Response {
        let response = Response(status: status, body: .init(string: page.html))
        response.headers.contentType = .html
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        response.headers.replaceOrAdd(name: "Referrer-Policy", value: "no-referrer")
        return response
    }
}
