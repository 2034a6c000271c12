import Foundation
import HandoverCore
import HandoverProtocol
import HandoverSchema
import LinkCallbacks
import HandoverPages
import Vapor

/// The ULC conformance tester at `/tester` (signed in to the dashboard).
///
/// A developer enters an app's logout action URL. The tester fetches and validates the
/// domain's association file and shows which appID claims the action path; creates a test with
/// single-use callback URLs on this server; shows the ULC link with a copy button and a QR code;
/// lists the steps; waits live; and gives a verdict per check. With a simulated phone attached
/// (`handover demo`), it can play a simulated app instead of a person.
struct TesterRoutes: RouteCollection {
    let auth: DashboardAuth
    let hub: RunEventHub
    let launch: TesterLaunch

    func boot(routes: RoutesBuilder) throws {
        let tester = routes.grouped("tester")
        tester.get(use: home)
        tester.post(use: create)
        tester.get(":testID", use: show)
        tester.get(":testID", "live", use: live)
        tester.post(":testID", "rounds", ":round", "start", use: startRound)
        tester.get("cb", ":testID", ":round", ":outcome", use: callback)
    }

    private func tester(_ request: Request) -> ConformanceTester { launch.tester(auth.databases.primary) }

    // MARK: Pages

    @Sendable func home(_ request: Request) async throws -> Response {
        try await auth.signedIn(request) { viewer in try await homePage(request, viewer: viewer, error: nil, status: .ok) }
    }

    private func homePage(_ request: Request, viewer: DashboardViewer, error: String?, status: HTTPResponseStatus) async throws -> Response {
        let recent = try await tester(request).recent(limit: 10)
        return DashboardLayout.page(TesterPage.homeTitle, signedIn: viewer, status: status) {
            TesterPage.home(viewer: viewer, recent: recent, simulatedBehaviours: launch.simulator?.behaviours, error: error)
        }
    }

    @Sendable func create(_ request: Request) async throws -> Response {
        try await auth.signedIn(request, needs: .admin) { viewer in
            try DashboardAuth.checkCSRF(request, expected: viewer.csrfToken)
            let simulate = (try? request.content.get(String.self, at: "simulate")).flatMap { $0.isEmpty ? nil : $0 }
            let action = ((try? request.content.get(String.self, at: "action")) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            let allowlist = (try? request.content.get(String.self, at: "allowlist")) == "1"
            do {
                let id = try await launch.createTest(action: action.isEmpty ? nil : action, declaresAllowlist: allowlist,
                                                   simulate: simulate, budgetSeconds: 20, on: tester(request))
                return DashboardLayout.redirect("/tester/\(id.uuidString.lowercased())")
            } catch {
                guard let refusal = APIError.refusal(error) else { throw error }
                return try await homePage(request, viewer: viewer, error: refusal.reason, status: refusal.status)
            }
        }
    }


    @Sendable func show(_ request: Request) async throws -> Response {
        try await auth.signedIn(request) { viewer in
            guard let id = request.parameters.get("testID", as: UUID.self), let test = try await tester(request).snapshot(id) else {
                throw DashboardError.notFound("No test with that id.")
            }
            return DashboardLayout.page(TesterPage.title(of: test), signedIn: viewer) { TesterPage.test(test, viewer: viewer) }
        }
    }

    @Sendable func live(_ request: Request) async throws -> Response {
        guard let viewer = try await auth.session(request) else { throw Abort(.unauthorized) }
        guard let id = request.parameters.get("testID", as: UUID.self) else { throw Abort(.notFound) }
        let tester = self.tester(request)
        let csrf = viewer.may(.admin) ? viewer.csrfToken : nil  // startRound's need
        return EventStream.response(changes: hub.subscribe(to: id), lease: try auth.streamLease(for: viewer, request)) {
            guard let test = try await tester.snapshot(id) else {
                return EventStream.Event(name: "done", data: TesterPage.gone.rendered, isFinal: true)
            }
            return EventStream.Event(name: test.isFinished ? "done" : "update", data: TesterPage.progress(test, csrf: csrf).rendered,
                                     isFinal: test.isFinished)
        }
    }

    @Sendable func startRound(_ request: Request) async throws -> Response {
        try await auth.signedIn(request, needs: .admin) { viewer in
            try DashboardAuth.checkCSRF(request, expected: viewer.csrfToken)
            guard let id = request.parameters.get("testID", as: UUID.self), let snapshot = try await tester(request).snapshot(id) else {
                throw DashboardError.notFound("No test with that id.")
            }
            guard let number = request.parameters.get("round", as: Int.self), snapshot.roundIndex(number) != nil else {
                throw DashboardError.notFound("This test has rounds 1 to \(snapshot.rounds.count) only.")
            }
            try await tester(request).start(id, roundNumber: number)
            return DashboardLayout.redirect("/tester/\(id.uuidString.lowercased())")
        }
    }

    // MARK: Callbacks

    /// `GET /tester/cb/<test>/<round>/<success|error>?n=<nonce>`: an app's answer to a test link.
    @Sendable func callback(_ request: Request) async throws -> Response {
        guard let id = request.parameters.get("testID", as: UUID.self), let number = request.parameters.get("round", as: Int.self),
              let outcome = request.parameters.get("outcome"), outcome == "success" || outcome == "error",
              let nonce = request.query[String.self, at: "n"], !nonce.isEmpty else {
            return TesterCallbackPage.malformed.response(.notFound)
        }
        let host = request.headers.first(name: .host) ?? "?"
        switch try await tester(request).record(id, roundNumber: number, outcome: outcome, nonce: nonce, host: host) {
        case .recorded:
            return TesterCallbackPage.received(outcome).response(.ok)
        case .notWaiting:
            return TesterCallbackPage.notWaiting.response(.conflict)
        case .unknown:
            return TesterCallbackPage.unknown.response(.notFound)
        }
    }
}
