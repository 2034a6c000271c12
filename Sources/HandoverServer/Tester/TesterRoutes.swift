import Foundation
import HandoverCore
import HandoverProtocol
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
        let simulator = launch.simulator
        return DashboardLayout.page("ULC conformance tester", signedIn: viewer, status: status) {
            HTML.element("section") {
                HTML.element("p") {
                    "Enter your app's logout action URL. The tester checks your association file, gives you a link to open on the phone, "
                    "and measures everything the ULC spec demands: the callback, the 20 s budget, a duplicate link and a hostile callback."
                }
                if viewer.may(.admin) {  // create's need
                    if let error { HTML.element("p", ["class": "error", "id": "form-error"]) { error } }
                    HTML.element("form", ["method": "post", "action": "/tester", "class": "stack", "id": "tester-form"]) {
                        DashboardLayout.csrfField(viewer.csrfToken)
                        HTML.element("label") {
                            "Logout action URL"
                            HTML.element("input", ["type": "text", "name": "action", "placeholder": "https://mail.example.com/ulc/logout"])
                        }
                        HTML.element("label", ["class": "check"]) {
                            HTML.element("input", ["type": "checkbox", "name": "allowlist", "value": "1"])
                            "The app accepts callbacks only to an allowlist of hosts (adds the hostile-callback round)"
                        }
                        if let simulator {
                            HTML.element("label") {
                                "…or play a simulated app on the simulated phone"
                                HTML.element("select", ["name": "simulate", "id": "simulate"]) {
                                    HTML.element("option", ["value": ""]) { "no: I will use my phone" }
                                    for behaviour in simulator.behaviours { HTML.element("option", ["value": behaviour]) { behaviour } }
                                }
                            }
                        }
                        HTML.element("button", ["type": "submit"]) { "Create test" }
                    }
                } else {
                    HTML.element("p", ["class": "note"]) { "Your role (\(viewer.permissions.summary)) sees the tests; an admin creates them." }
                }
            }
            if !recent.isEmpty {
                HTML.element("section") {
                    HTML.element("h2") { "Recent tests" }
                    HTML.element("div", ["class": "scroll"]) {
                        HTML.element("table") {
                            for test in recent {
                                HTML.element("tr") {
                                    HTML.element("td") { DashboardLayout.time(test.createdAt) }
                                    HTML.element("td") { HTML.element("a", ["href": "/tester/\(test.id.uuidString.lowercased())"]) { test.actionURL } }
                                    HTML.element("td") { test.simulatedBehaviour.map { "simulated \($0)" } ?? "" }
                                    HTML.element("td") { DashboardLayout.badge(test.verdict.status) }
                                }
                            }
                        }
                    }
                }
            }
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
            let live = "/tester/\(id.uuidString.lowercased())/live"
            return DashboardLayout.page("Test of \(test.actionURL)", signedIn: viewer) {
                HTML.element("section") {
                    HTML.element("h2") { "1. Association file" }
                    HTML.element("p") { HTML.element("code") { test.association.url } }
                    HTML.element("p", ["id": "association"]) {
                        DashboardLayout.badge(test.association.claimingAppID == nil ? TesterVerdict.Row.Result.fail : .pass); " "; test.association.summary
                    }
                    if !test.association.findings.isEmpty {
                        HTML.element("ul") { for finding in test.association.findings { HTML.element("li") { finding } } }
                    }
                }
                DashboardLayout.live(id: "test", source: live) { Self.progress(test, csrf: viewer.may(.admin) ? viewer.csrfToken : nil) }
            }
        }
    }

    @Sendable func live(_ request: Request) async throws -> Response {
        guard let viewer = try await auth.session(request) else { throw Abort(.unauthorized) }
        guard let id = request.parameters.get("testID", as: UUID.self) else { throw Abort(.notFound) }
        let tester = self.tester(request)
        let csrf = viewer.may(.admin) ? viewer.csrfToken : nil  // startRound's need
        return EventStream.response(changes: hub.subscribe(to: id), lease: try auth.streamLease(for: viewer, request)) {
            guard let test = try await tester.snapshot(id) else {
                return EventStream.Event(name: "done", data: HTML("This test no longer exists.").rendered, isFinal: true)
            }
            return EventStream.Event(name: test.isFinished ? "done" : "update", data: Self.progress(test, csrf: csrf).rendered,
                                     isFinal: test.isFinished)
        }
    }

    /// The live part of a test page: the rounds with their links and steps, and the verdict.
    static func progress(_ test: ConformanceTester.Snapshot, csrf: String?) -> HTML {
        let verdict = test.verdict
        let idText = test.id.uuidString.lowercased()
        return .join([
            .element("section") {
                HTML.element("h2") { "2. Open the links" }
                if let behaviour = test.simulatedBehaviour {
                    HTML.element("p", ["class": "note"]) { "A simulated \(behaviour) app on the simulated phone plays every round; just watch." }
                }
                for (index, round) in test.rounds.enumerated() {
                    HTML.element("div", ["class": "card", "id": "round-\(index + 1)"]) {
                        HTML.element("p") {
                            HTML.element("strong") { "Round \(index + 1): \(round.kind.rawValue)" }; " "; DashboardLayout.badge(round.status)
                        }
                        if round.status == .ready || round.status == .waiting, !round.link.isEmpty {
                            HTML.element("p") { round.instruction }
                            HTML.element("div", ["class": "link-box"]) {
                                HTML.element("code", ["id": "link-\(index + 1)"]) { round.link }
                                HTML.element("button", ["type": "button", "class": "secondary", "data-copy": "link-\(index + 1)"]) { "Copy" }
                            }
                            if let svg = TesterQR.svg(round.link) {
                                HTML.element("div", ["class": "qr", "title": "Scan with the phone's camera"]) { HTML.raw(svg) }
                            }
                            if round.status == .ready, test.simulatedBehaviour == nil, test.nextReadyRound == index, let csrf {
                                HTML.element("form", ["method": "post", "action": "/tester/\(idText)/rounds/\(index + 1)/start"]) {
                                    DashboardLayout.csrfField(csrf)
                                    HTML.element("button", ["type": "submit"]) { "Start round \(index + 1)" }
                                }
                            }
                        }
                        if let detail = round.detail { HTML.element("p", ["class": "note"]) { detail } }
                    }
                }
            },
            .element("section", ["id": "verdict", "data-status": verdict.status.rawValue]) {
                HTML.element("h2") { "3. Verdict" }
                HTML.element("p", ["class": "verdict"]) {
                    switch verdict.status {
                    case .passed: "Passed: the app answers ULC links as the spec demands."
                    case .failed: "Failed: see the checks below."
                    case .running: "Waiting for the app…"
                    }
                }
                HTML.element("div", ["class": "scroll"]) {
                    HTML.element("table") {
                        HTML.element("tr") { HTML.element("th") { "Check" }; HTML.element("th") { "Result" }; HTML.element("th") { "Detail" } }
                        for row in verdict.rows {
                            HTML.element("tr", ["data-check": row.check]) {
                                HTML.element("td") { row.check }
                                HTML.element("td") { DashboardLayout.badge(row.result) }
                                HTML.element("td") { row.detail }
                            }
                        }
                    }
                }
            },
        ])
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
            return CallbackPageRoutes.page(.notFound, "Link not valid", "This test link is not valid.", "Check the link and try again.")
        }
        let host = request.headers.first(name: .host) ?? "?"
        switch try await tester(request).record(id, roundNumber: number, outcome: outcome, nonce: nonce, host: host) {
        case .recorded:
            return CallbackPageRoutes.page(.ok, "Callback received", "The tester received the \(outcome) callback.",
                                           "Return to the tester page to see the verdict.")
        case .notWaiting:
            return CallbackPageRoutes.page(.conflict, "Round not running", "This test round is not waiting for a callback.",
                                           "Start the round on the tester page first, or start a new test.")
        case .unknown:
            return CallbackPageRoutes.page(.notFound, "Link not valid", "This test link is not valid.", "It may belong to another test.")
        }
    }
}

extension DashboardLayout {
    static func badge(_ status: TesterRound.Status) -> HTML {
        let tone: Tone = switch status { case .passed: .good; case .failed: .bad; case .skipped: .muted; case .ready, .waiting: .wait }
        return badge(status.rawValue, tone)
    }

    static func badge(_ result: TesterVerdict.Row.Result) -> HTML {
        let tone: Tone = switch result { case .pass: .good; case .fail: .bad; case .skipped: .muted; case .pending: .wait }
        return badge(result.rawValue, tone)
    }
}
