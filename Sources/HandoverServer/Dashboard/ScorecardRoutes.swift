import Foundation
import HandoverCore
import HandoverProtocol
import HandoverPages
import Vapor

/// Per-app scorecards on the dashboard: how each registered app does at logging out, so IT
/// can compare vendors. `/dashboard/scorecards` lists every app's success rate and timeouts over
/// the last 7 and 30 days (one indexed count per app); `/dashboard/scorecards/{appID}` adds the
/// p50 and p95 logout time and draws the last 30 days as a chart (`…/chart.svg` alone).
struct ScorecardRoutes: RouteCollection {
    let auth: DashboardAuth
    let clock: ServerClock

    func boot(routes: RoutesBuilder) throws {
        let scorecards = routes.grouped("dashboard", "scorecards")
        scorecards.get(use: list)
        scorecards.get(":appID", use: appPage)
        scorecards.get(":appID", "chart.svg", use: chart)
    }


    @Sendable func list(_ request: Request) async throws -> Response {
        try await auth.signedIn(request) { viewer in
            let apps = try await RegisteredApp.allByName(on: auth.databases.reads)
            let sql = try auth.databases.readSQL()
            let now = clock.now()
            var rows: [(app: RegisteredApp, last7: AppScorecard.Window, last30: AppScorecard.Window)] = []
            for app in apps {
                let counts = try await AppScorecard.counts(app: try app.storedID, now: now, sites: viewer.siteFilter, on: sql)
                rows.append((app, counts.last7, counts.last30))
            }
            return DashboardLayout.page("Scorecards", signedIn: viewer) {
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
                                    HTML.element("td") { Self.rate(row.last7) }
                                    HTML.element("td") { String(row.last7.timedOut) }
                                    HTML.element("td") { Self.rate(row.last30) }
                                    HTML.element("td") { String(row.last30.timedOut) }
                                    HTML.element("td") { String(row.last30.finished) }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    @Sendable func appPage(_ request: Request) async throws -> Response {
        try await auth.signedIn(request) { viewer in
            let app = try await app(request)
            let appID = try app.storedID
            let card = try await AppScorecard.load(app: appID, now: clock.now(), sites: viewer.siteFilter, on: try auth.databases.readSQL())
            return DashboardLayout.page("Scorecard: \(app.name)", signedIn: viewer) {
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
                                    HTML.element("td") { Self.rate(window) }
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
        }
    }

    @Sendable func chart(_ request: Request) async throws -> Response {
        try await auth.signedIn(request) { viewer in
            let app = try await app(request)
            let card = try await AppScorecard.load(app: try app.storedID, now: clock.now(), sites: viewer.siteFilter,
                                                  on: try auth.databases.readSQL())
            let response = Response(status: .ok, body: .init(string: ScorecardChart.svg(card)))
            response.headers.replaceOrAdd(name: .contentType, value: "image/svg+xml; charset=utf-8")
            response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
            response.headers.replaceOrAdd(name: "Content-Security-Policy", value: "default-src 'none'; style-src 'unsafe-inline'")
            return response
        }
    }

    private func app(_ request: Request) async throws -> RegisteredApp {
        guard let text = request.parameters.get("appID"), let id = UUID(uuidString: text),
              let app = try await RegisteredApp.stored(id, on: auth.databases.reads) else {
            throw DashboardError.notFound("No registered app has this id. The Scorecards page lists every app.")
        }
        return app
    }

    static func rate(_ window: AppScorecard.Window) -> String {
        guard let rate = window.successRate else { return "—" }
        return String(format: "%.1f %%", rate * 100)
    }
}
