import Foundation
import HandoverCore
import HandoverProtocol

/// The ULC conformance tester's pages at `/tester`: the home page (what the tester does, the form
/// that creates a test for an admin, and the recent tests) and a test's page (the association
/// file's check, then the live part: the rounds with their links, QR codes and steps, and the
/// verdict per check).
package enum TesterPage {
    /// The home page's title.
    package static let homeTitle = "ULC conformance tester"

    /// A test's page title.
    package static func title(of test: ConformanceTester.Snapshot) -> String { "Test of \(test.actionURL)" }

    /// The home page: the form for an admin (with `error` above it when a test was refused, and a
    /// choice of `simulatedBehaviours` when a simulated phone is attached), a note for other
    /// roles, and the `recent` tests when there are any.
    @HTMLBuilder
    package static func home(viewer: DashboardViewer, recent: [ConformanceTester.Snapshot], simulatedBehaviours: [String]?,
                             error: String?) -> HTML {
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
                    if let simulatedBehaviours {
                        HTML.element("label") {
                            "…or play a simulated app on the simulated phone"
                            HTML.element("select", ["name": "simulate", "id": "simulate"]) {
                                HTML.element("option", ["value": ""]) { "no: I will use my phone" }
                                for behaviour in simulatedBehaviours { HTML.element("option", ["value": behaviour]) { behaviour } }
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

    /// A test's page: the association file's check, and the live block that follows the test
    /// (``progress(_:csrf:)``, with start buttons only for an admin).
    @HTMLBuilder
    package static func test(_ test: ConformanceTester.Snapshot, viewer: DashboardViewer) -> HTML {
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
        DashboardLayout.live(id: "test", source: liveSource(test.id)) { progress(test, csrf: viewer.may(.admin) ? viewer.csrfToken : nil) }
    }

    /// The SSE stream a test's page follows.
    package static func liveSource(_ id: UUID) -> String { "/tester/\(id.uuidString.lowercased())/live" }

    /// What the live block says once the test is gone.
    package static let gone = HTML("This test no longer exists.")

    /// The live part of a test page: the rounds with their links and steps, and the verdict.
    /// `csrf` is the viewer's token when they may start rounds (an admin), else nil: no buttons.
    package static func progress(_ test: ConformanceTester.Snapshot, csrf: String?) -> HTML {
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
}
