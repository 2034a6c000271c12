import Foundation
import HandoverCore
import HandoverPages
import HandoverSchema
import Testing

/// The Scorecards pages from plain values: a row per app, escaped names, the empty state, and an
/// app's windows and chart.
@Suite struct ScorecardPageTests {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)

    static func app(_ name: String) -> RegisteredApp {
        let app = RegisteredApp()
        app.id = UUID()
        app.name = name
        return app
    }

    static func card() -> AppScorecard {
        AppScorecard(outcomes: [
            .init(state: .succeeded, finishedAt: now.addingTimeInterval(-3_600), seconds: 1.5),
            .init(state: .succeeded, finishedAt: now.addingTimeInterval(-7_200), seconds: 2.5),
            .init(state: .timedOut, finishedAt: now.addingTimeInterval(-86_400 * 10), seconds: 30),
        ], now: now)
    }

    @Test func theListHasARowPerAppWithItsNameEscaped() {
        let card = Self.card()
        let rows = [ScorecardPage.Row(app: Self.app("<script>alert(1)</script>"), last7: card.last7, last30: card.last30),
                    ScorecardPage.Row(app: Self.app("Epic"), last7: card.last7, last30: card.last30)]
        let html = ScorecardPage.list(rows).rendered
        #expect(html.components(separatedBy: "<tr>").count - 1 == 3, "a header and a row per app")
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(!html.contains("<script>"))
        #expect(html.contains("<td>100.0 %</td>"), "the last 7 days: two successes")
        #expect(html.contains("<td>66.7 %</td>"), "the last 30 days: two of three")
    }

    @Test func anEmptyRegistrySaysWhereToAddAnApp() {
        let html = ScorecardPage.list([]).rendered
        #expect(html.contains("No apps registered yet. Add one on the Apps page."))
        #expect(!html.contains("<table"))
    }

    @Test func anAppsPageShowsItsWindowsTimesAndChart() {
        let id = UUID()
        let html = ScorecardPage.app(id, card: Self.card()).rendered
        #expect(html.contains("<td>Last 7 days</td>"))
        #expect(html.contains("<td>Last 30 days</td>"))
        #expect(html.contains("<td>1.5 s</td>") || html.contains("<td>2.5 s</td>"), "a p50 time")
        #expect(html.contains("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(html.contains("/dashboard/scorecards/\(id.uuidString.lowercased())/chart.svg"))
    }

    @Test func aRateWithoutLogoutsIsADash() {
        #expect(ScorecardPage.rate(AppScorecard(outcomes: [], now: Self.now).last7) == "—")
        #expect(ScorecardChart.seconds(0.25) == "250 ms")
        #expect(ScorecardChart.niceCeiling(3.2) == 5)
    }
}
