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
            return Self.page(.notFound, "Link not valid", "This sign-out link is not valid.",
                             "Return to the launcher; it will try again.")
        }
        let callback = LogoutRunService.Callback(run: run, item: item, outcome: outcome, nonce: nonce, reportedBy: .browser)
        switch try await commits.record(callback, on: request.application) {
        case .recorded(let app, .success):
            return Self.page(.ok, "Signed out", "Signed out of \(app).", "You can return to the launcher.")
        case .recorded(let app, .error):
            return Self.page(.ok, "Sign-out failed", "\(app) could not sign out.",
                             "The launcher has been told. Return to it, or ask IT if it keeps happening.")
        case .alreadyRecorded(let app, let status):
            return Self.page(.conflict, "Already recorded", "This link was used already.",
                             "\(app)'s sign-out is recorded as \(status.rawValue.replacingOccurrences(of: "_", with: " ")); nothing changed.")
        case .unknown:
            return Self.page(.notFound, "Link not valid", "This sign-out link is not valid.",
                             "It may be from another run. Return to the launcher; it will try again.")
        }
    }

    static func page(_ status: HTTPResponseStatus, _ title: String, _ heading: String, _ text: String) -> Response {
        let response = Response(status: status, body: .init(string: HTMLPage(title: title, heading: heading, paragraphs: [text]).html))
        response.headers.contentType = .html
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        response.headers.replaceOrAdd(name: "Referrer-Policy", value: "no-referrer")
        return response
    }
}
