import Foundation
import HandoverCore
import HandoverProtocol
import HandoverServer
import Testing

/// The dashboard's per-app scorecards (figures over 7 and 30 days, the chart) and a run's
/// timeline (each attempt, reissue, answer, timeout, backend and webhook).
@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct ScorecardAndTimelineTests {
    /// The text of the timeline's rows, in page order.
    static func timelineRows(_ page: String) -> [String] {
        guard let table = page.range(of: #"<table id="timeline-entries">"#) else { return [] }
        let rest = page[table.upperBound...]
        let end = rest.range(of: "</table>")?.lowerBound ?? rest.endIndex
        return rest[..<end].components(separatedBy: "<tr class=\"event").dropFirst().map { row in
            row.replacingOccurrences(of: "<[^>]+>", with: " ", options: .regularExpression)
                .replacingOccurrences(of: "\\s+", with: " ", options: .regularExpression)
        }
    }

    @Test(arguments: TestDatabase.available)
    func aRunsPageTellsEveryAttemptAnswerTimeoutAndWebhookInOrder(database: TestDatabase) async throws {
        let test = try await TestServer.start(database)
        let receiver = try await WebhookReceiver.start()
        let hook = try await test.request(.POST, "/api/v1/webhooks", json: ["url": receiver.url, "events": ["run.failed"]], key: test.adminKey)
        #expect(hook.status == 201)
        try await test.registerTarget("Mail", deadline: 20, maxReissues: 1)
        try await test.registerTarget("Silent", deadline: 20, maxReissues: 1)
        let device = try await test.registerDevice("ward-4-phone-2")
        let run = try await LogoutRunTests.startRun(test, device: device)

        test.clock.advance(by: 3)
        #expect(try await test.request(.GET, try LogoutRunTests.callback(try #require(run.link("Mail")), "success", on: test)).status == 200)
        test.clock.advance(by: 18)  // +21 s: not yet: Silent's turn began at Mail's answer, so its first link is due at +23 s
        #expect(try await test.server.fireDeadlines() == (0, 0))
        test.clock.advance(by: 3)  // +24 s: Silent's first deadline passed
        #expect(try await test.server.fireDeadlines() == (1, 0))
        test.clock.advance(by: 21)  // +45 s: its second too, and no reissue is left
        #expect(try await test.server.fireDeadlines() == (0, 1))
        #expect(try await test.server.deliverWebhooks() == 1)

        let browser = DashboardBrowser(test)
        _ = try await browser.signIn(key: test.adminKey)
        let page = try await browser.get("/dashboard/runs/\(run.id)")
        #expect(page.status == 200)
        let rows = Self.timelineRows(page.text)
        let expected = [
            "+0 ms — Run started on ward-4-phone-2: 2 apps to log out",
            "+0 ms Mail Link issued (attempt 1)",
            "+0 ms Silent Link issued (attempt 1)",
            "+3000 ms Mail Answered: logged out through the browser page, attempt 1, 3000 ms after the start",
            "+24.0 s Silent No answer by",
            "+45.0 s Silent Timed out: no answer after 2 attempts",
            "+45.0 s — Run failed in 45.0 s",
            "+45.0 s — Webhook run.failed to \(receiver.url): delivered after 1 attempt (HTTP 200)",
        ]
        #expect(rows.count == expected.count, "\(rows)")
        for (row, start) in zip(rows, expected) {
            #expect(row.contains(start), "\(row) should contain \(start)")
        }
        // The reissue names the deadline it missed, how late it fired, and the new one.
        #expect(rows.count > 4 && rows[4].contains("(fired 1000 ms after it): link reissued (attempt 2), answer due by"), "\(rows)")
        #expect(page.text.contains(#"class="event timed-out problem""#))

        // The overview and the device's page link to it.
        #expect(try await browser.get("/dashboard").text.contains("href=\"/dashboard/runs/\(run.id.lowercased())\""))
        #expect(try await browser.get("/dashboard/devices/\(device.id)").text.contains("href=\"/dashboard/runs/\(run.id.lowercased())\""))
        // A run that does not exist is a page that says so.
        for path in ["/dashboard/runs/\(UUID().uuidString)", "/dashboard/runs/not-a-run"] {
            let missing = try await browser.get(path)
            #expect(missing.status == 404)
            #expect(missing.text.contains("No logout run has this id"))
        }
        try await receiver.stop()
        try await test.stop()
    }

    @Test(arguments: TestDatabase.available)
    func aScorecardCountsEachAppsOutcomesAndDrawsThem(database: TestDatabase) async throws {
        let test = try await TestServer.start(database)
        let mailID = try await test.registerTarget("Mail", deadline: 20, maxReissues: 0)
        // Four runs: answered after 1, 2 and 4 s, one failure, then one timeout.
        for (seconds, outcome) in [(1.0, "success"), (2.0, "success"), (4.0, "success"), (1.0, "error")] {
            let device = try await test.registerDevice()
            let run = try await LogoutRunTests.startRun(test, device: device)
            test.clock.advance(by: seconds)
            #expect(try await test.request(.GET, try LogoutRunTests.callback(try #require(run.link("Mail")), outcome, on: test)).status == 200)
        }
        let device = try await test.registerDevice()
        _ = try await LogoutRunTests.startRun(test, device: device)
        test.clock.advance(by: 21)
        #expect(try await test.server.fireDeadlines() == (0, 1))
        try await test.registerTarget("Unused")  // registered after the runs: no logouts yet

        let browser = DashboardBrowser(test)
        _ = try await browser.signIn(key: test.adminKey)
        let list = try await browser.get("/dashboard/scorecards")
        #expect(list.status == 200)
        let flat = list.text.replacingOccurrences(of: "<[^>]+>", with: " ", options: .regularExpression)
            .replacingOccurrences(of: "\\s+", with: " ", options: .regularExpression)
        #expect(flat.contains("Mail 60.0 % 1 60.0 % 1 5"), "\(flat)")
        #expect(flat.contains("Unused — 0 — 0 0"), "\(flat)")

        let page = try await browser.get("/dashboard/scorecards/\(mailID)")
        #expect(page.status == 200)
        let figures = page.text.replacingOccurrences(of: "<[^>]+>", with: " ", options: .regularExpression)
            .replacingOccurrences(of: "\\s+", with: " ", options: .regularExpression)
        // p50 of 1, 2, 4 s is 2 s; p95 is 4 s.
        #expect(figures.contains("Last 7 days 60.0 % 3 1 1 2.0 s 4.0 s"), "\(figures)")
        #expect(figures.contains("Last 30 days 60.0 % 3 1 1 2.0 s 4.0 s"), "\(figures)")
        #expect(page.text.contains("<svg"))
        #expect(page.text.contains("3 succeeded of 5"))

        let chart = try await browser.get("/dashboard/scorecards/\(mailID)/chart.svg")
        #expect(chart.status == 200)
        #expect(chart.headers.first(name: "Content-Type")?.hasPrefix("image/svg+xml") == true)
        #expect(chart.text.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(chart.text.contains("1 timed out of 5"))

        for path in ["/dashboard/scorecards/\(UUID().uuidString)", "/dashboard/scorecards/nope/chart.svg"] {
            let missing = try await browser.get(path)
            #expect(missing.status == 404)
            #expect(missing.text.contains("No registered app has this id"))
        }
        // Signed out: to the sign-in form, chart included.
        #expect(try await test.request(.GET, "/dashboard/scorecards/\(mailID)/chart.svg").status == 303)
        try await test.stop()
    }

    /// The windows and days of a scorecard, from plain outcomes.
    @Test func scorecardWindowsAndDaysCountWhatFinishedInsideThem() throws {
        let now = try Date("2026-11-24T07:30:00Z", strategy: .iso8601)
        func outcome(_ state: LogoutItemState, daysAgo: Double, seconds: Double = 1) -> AppScorecard.Outcome {
            .init(state: state, finishedAt: now.addingTimeInterval(-daysAgo * 86_400), seconds: seconds)
        }
        let card = AppScorecard(outcomes: [
            outcome(.succeeded, daysAgo: 0.1, seconds: 2), outcome(.succeeded, daysAgo: 6.9, seconds: 8),
            outcome(.timedOut, daysAgo: 7.1), outcome(.failed, daysAgo: 29.9), outcome(.succeeded, daysAgo: 30.5, seconds: 99),
        ], now: now)
        #expect(card.last7.succeeded == 2 && card.last7.timedOut == 0 && card.last7.failed == 0)
        #expect(card.last7.p50Seconds == 2 && card.last7.p95Seconds == 8)
        #expect(card.last30.finished == 4)
        #expect(card.last30.successRate == 0.5)
        #expect(card.daily.count == 30)
        #expect(card.daily.last?.succeeded == 1)
        // The chart's 30 calendar days start at midnight 29 days back: 29.9 days ago is before them.
        #expect(card.daily.reduce(0) { $0 + $1.finished } == 3)
        #expect(AppScorecard(outcomes: [], now: now).last7.successRate == nil)
    }
}
