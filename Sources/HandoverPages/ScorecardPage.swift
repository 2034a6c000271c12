import Foundation
import HandoverCore
import HandoverSchema

/// The Scorecards pages (`/dashboard/scorecards` and `/dashboard/scorecards/{appID}`): how each
/// registered app does at logging out, so IT can compare vendors. The list shows every app's
/// success rate and timeouts over the last 7 and 30 days; an app's page adds the p50 and p95
/// logout time and draws the last 30 days as a chart (``ScorecardChart``).
package enum ScorecardPage {
    /// One app's line of the list: its counts over the last 7 and 30 days.
    package struct Row: Sendable {
        package var app: RegisteredApp
        package var last7: AppScorecard.Window
        package var last30: AppScorecard.Window

        package init(app: RegisteredApp, last7: AppScorecard.Window, last30: AppScorecard.Window) {
            self.app = app
            self.last7 = last7
            self.last30 = last30
        }
    }

    /// The list of every app's scorecard, in the order of `rows`.
    @HTMLBuilder
    package static func list(_ rows: [Row]) -> HTML {
        HTML.element("p", ["class": "note"]) {
            "How each app does at logging out: the share of its logouts that succeeded, and how many timed out "
            "(no answer after every reissue). Open an app for its logout times and the last 30 days as a chart."
        }
        if rows.isEmpty {
            HTML.element("p", ["class": "note"]) { "No apps registered yet. Add one on the Apps page." }
        } else {
            HTML.element("div", ["class": "scroll"]) {
                HTML.element("table", ["id": "scorecards"]) {
                    HTML.element("tr") {
                        HTML.element("th") { "App" }
                        HTML.element("th") { "Success, 7 days" }; HTML.element("th") { "Timed out, 7 days" }
                        HTML.element("th") { "Success, 30 days" }; HTML.element("th") { "Timed out, 30 days" }
                        HTML.element("th") { "Logouts, 30 days" }
                    }
                    for row in rows {
                        HTML.element("tr") {
                            HTML.element("td") { DashboardLinks.scorecard(row.app) }
                            HTML.element("td") { rate(row.last7) }
                            HTML.element("td") { String(row.last7.timedOut) }
                            HTML.element("td") { rate(row.last30) }
                            HTML.element("td") { String(row.last30.timedOut) }
                            HTML.element("td") { String(row.last30.finished) }
                        }
                    }
                }
            }
        }
    }

    /// One app's scorecard: its windows with logout times, and the last 30 days as a chart.
    @HTMLBuilder
    package static func app(_ appID: UUID, card: AppScorecard) -> HTML {
        HTML.element("section") {
            HTML.element("div", ["class": "scroll"]) {
                HTML.element("table", ["id": "windows"]) {
                    HTML.element("tr") {
                        HTML.element("th") { "Window" }; HTML.element("th") { "Success rate" }
                        HTML.element("th") { "Succeeded" }; HTML.element("th") { "Failed" }; HTML.element("th") { "Timed out" }
                        HTML.element("th") { "p50 logout time" }; HTML.element("th") { "p95 logout time" }
                    }
                    for window in [card.last7, card.last30] {
                        HTML.element("tr") {
                            HTML.element("td") { "Last \(window.days) days" }
                            HTML.element("td") { rate(window) }
                            HTML.element("td") { String(window.succeeded) }
                            HTML.element("td") { String(window.failed) }
                            HTML.element("td") { String(window.timedOut) }
                            HTML.element("td") { window.p50Seconds.map(ScorecardChart.seconds) ?? "—" }
                            HTML.element("td") { window.p95Seconds.map(ScorecardChart.seconds) ?? "—" }
                        }
                    }
                }
            }
            HTML.element("p", ["class": "note"]) {
                "A logout's time runs from the start of its run to the app's answer: what the person handing over waits for. "
                "Times count successful logouts only."
            }
        }
        HTML.element("section", ["id": "chart"]) {
            HTML.element("h2") { "Last 30 days" }
            HTML.raw(ScorecardChart.svg(card))
            HTML.element("p", ["class": "note"]) {
                HTML.element("a", ["href": "/dashboard/scorecards/\(appID.uuidString.lowercased())/chart.svg"]) { "The chart alone (SVG)" }
                " · "
                HTML.element("a", ["href": "/dashboard/scorecards"]) { "All apps" }
            }
        }
    }

    /// A window's success rate as a percentage with one decimal, or `—` without finished logouts.
    package static func rate(_ window: AppScorecard.Window) -> String {
        guard let rate = window.successRate else { return "—" }
        return String(format: "%.1f %%", rate * 100)
    }
}
