import Foundation
import HandoverCore
import HandoverProtocol
import HandoverSchema
import Testing
import HandoverPages

/// The tester's pages, rendered from a stored test with no server and no database.
@Suite struct TesterPageTests {
    static func viewer(_ grants: String) -> DashboardViewer {
        .fixture(grants)
    }

    /// A test of `action` whose rounds have `statuses`, as the tester stores it.
    static func snapshot(action: String = "https://mail.example.com/ulc/logout", statuses: [String] = ["ready", "ready", "skipped"],
                         simulated: String? = nil, claiming: String? = "ABCDE12345.com.example.mail") throws -> ConformanceTester.Snapshot {
        let kinds = ["callback", "duplicate", "hostile"]
        let rounds: [[String: Any]] = statuses.enumerated().map { index, status in
            ["kind": kinds[index], "status": status, "link": "https://mail.example.com/ulc/logout?round=\(index + 1)",
             "nonce": "n\(index)", "arrivals": [Any]()]
        }
        var association: [String: Any] = ["url": "https://mail.example.com/.well-known/apple-app-site-association", "statusCode": 200,
                                          "findings": ["warning at $.applinks: <b>odd</b>"], "errors": 0, "decisions": [String: String]()]
        if let claiming { association["claimingAppID"] = claiming }
        let run = TesterRun()
        run.id = UUID()
        run.actionURL = action
        run.associationReport = String(decoding: try JSONSerialization.data(withJSONObject: association), as: UTF8.self)
        run.declaresAllowlist = false
        run.simulatedBehaviour = simulated
        run.budgetSeconds = 20
        run.rounds = String(decoding: try JSONSerialization.data(withJSONObject: rounds), as: UTF8.self)
        run.status = .running
        run.createdAt = Date(timeIntervalSince1970: 1_800_000_000)
        run.version = 0
        return try ConformanceTester.snapshot(run)
    }

    @Test func anAdminGetsTheFormAndTheRecentTestsEscaped() throws {
        let hostile = try Self.snapshot(action: "https://x.example/<script>alert(1)</script>")
        let html = TesterPage.home(viewer: Self.viewer("admin"), recent: [hostile, try Self.snapshot()],
                                   simulatedBehaviours: ["conformant", "slow"], error: "The action URL is not https.").rendered
        #expect(html.contains(#"<form method="post" action="/tester" class="stack" id="tester-form">"#))
        #expect(html.contains(#"<p class="error" id="form-error">The action URL is not https.</p>"#))
        #expect(html.contains(#"<option value="slow">slow</option>"#))
        #expect(html.components(separatedBy: "<tr>").count - 1 == 2, "a row per recent test")
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(!html.contains("<script>alert(1)"))
    }

    @Test func aViewerSeesTheTestsButNoForm() {
        let html = TesterPage.home(viewer: Self.viewer("viewer"), recent: [], simulatedBehaviours: nil, error: nil).rendered
        #expect(!html.contains("<form"))
        #expect(html.contains("an admin creates them."))
        #expect(!html.contains("Recent tests"), "no section without tests")
    }

    @Test func onlyTheNextReadyRoundOffersAStartButtonAndOnlyWithAToken() throws {
        let test = try Self.snapshot()
        let withToken = TesterPage.progress(test, csrf: "t").rendered
        #expect(withToken.contains("Start round 1"))
        #expect(!withToken.contains("Start round 2"), "round 2 waits for round 1")
        #expect(withToken.contains(#"<section id="verdict" data-status="running">"#))
        #expect(withToken.contains("Waiting for the app…"))
        #expect(!TesterPage.progress(test, csrf: nil).rendered.contains("<form"))
        #expect(!TesterPage.progress(try Self.snapshot(simulated: "slow"), csrf: "t").rendered.contains("<form"), "a simulated app plays itself")
    }

    @Test func aTestPageShowsTheAssociationAndFollowsTheTestLive() throws {
        let test = try Self.snapshot(claiming: nil)
        let html = TesterPage.test(test, viewer: Self.viewer("viewer")).rendered
        #expect(html.contains(#"<span class="badge bad">fail</span>"#), "no app claims the path")
        #expect(html.contains("warning at $.applinks: &lt;b&gt;odd&lt;/b&gt;"))
        #expect(html.contains(#"data-live="\#(TesterPage.liveSource(test.id))""#))
        #expect(!html.contains("Start round"), "a viewer starts nothing")
        #expect(TesterPage.title(of: test) == "Test of https://mail.example.com/ulc/logout")
    }

    @Test func roundAndCheckBadgesHaveTheirTones() {
        #expect(DashboardLayout.badge(TesterRound.Status.waiting).rendered == #"<span class="badge wait">waiting</span>"#)
        #expect(DashboardLayout.badge(TesterVerdict.Row.Result.skipped).rendered == #"<span class="badge muted">skipped</span>"#)
    }
}
