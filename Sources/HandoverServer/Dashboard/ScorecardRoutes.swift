import Foundation
import HandoverCore
import HandoverProtocol
import HandoverPages
import HandoverSchema
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
            var rows: [ScorecardPage.Row] = []
            for app in apps {
                let counts = try await AppScorecard.counts(app: try app.storedID, now: now, sites: viewer.siteFilter, on: sql)
                rows.append(.init(app: app, last7: counts.last7, last30: counts.last30))
            }
            return DashboardLayout.page("Scorecards", signedIn: viewer) { ScorecardPage.list(rows) }
        }
    }

    @Sendable func appPage(_ request: Request) async throws -> Response {
        try await auth.signedIn(request) { viewer in
            let app = try await app(request)
            let appID = try app.storedID
            let card = try await AppScorecard.load(app: appID, now: clock.now(), sites: viewer.siteFilter, on: try auth.databases.readSQL())
            return DashboardLayout.page("Scorecard: \(app.name)", signedIn: viewer) { ScorecardPage.app(appID, card: card) }
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
}
