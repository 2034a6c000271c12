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
            return CallbackPage.malformed.response(.notFound)
        }
        let callback = LogoutRunService.Callback(run: run, item: item, outcome: outcome, nonce: nonce, reportedBy: .browser)
        switch try await commits.record(callback, on: request.application) {
        case .recorded(let app, .success):
            return CallbackPage.signedOut(app).response(.ok)
        case .recorded(let app, .error):
            return CallbackPage.signOutFailed(app).response(.ok)
        case .alreadyRecorded(let app, let status):
            return CallbackPage.alreadyRecorded(app, status: status).response(.conflict)
        case .unknown:
            return CallbackPage.unknown.response(.notFound)
        }
    }

}
