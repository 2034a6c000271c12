import Foundation
import HandoverCore
import HandoverProtocol
import HandoverPages
import HandoverSchema
import Vapor

/// The fleet's devices on the dashboard (`/dashboard/devices`), 50 to a page, paged in the
/// database: a search on name and serial number (`q`), a status (`status`), a ready-made filter
/// (`filter`: out of service, overdue, failed in the last 24 h) and the page (`page`). Every
/// value is in the query string, so a view can be bookmarked and shared.
struct DeviceListRoutes: RouteCollection {
    let auth: DashboardAuth
    let clock: ServerClock

    func boot(routes: RoutesBuilder) throws {
        routes.grouped("dashboard", "devices").get(use: list)
    }


    @Sendable func list(_ request: Request) async throws -> Response {
        try await auth.signedIn(request) { viewer in
            var search = Self.search(from: request)
            search.sites = viewer.siteFilter
            let page = try await search.run(on: auth.databases.reads, now: clock.now())
            if search.page > page.pageCount { return Self.pastTheLastPage(search, page: page, signedIn: viewer) }
            let lastRuns = try await LogoutRun.byID(page.devices.compactMap(\.lastRunID), on: auth.databases.reads)
            return DashboardLayout.page("Devices", signedIn: viewer) {
                DeviceListPage.body(search, page: page, lastRuns: lastRuns, viewer: viewer)
            }
        }
    }

    /// The search the query string asks for; unknown values fall back to "all" and page 1.
    static func search(from request: Request) -> DeviceSearch {
        let text = (try? request.query.get(String.self, at: "q")) ?? ""
        let status = (try? request.query.get(String.self, at: "status")).flatMap { DeviceStatus(rawValue: $0) }
        let filter = (try? request.query.get(String.self, at: "filter")).flatMap { DeviceSearch.Filter(rawValue: $0) } ?? .all
        let page = (try? request.query.get(Int.self, at: "page")) ?? 1
        return DeviceSearch(text: text, status: status, filter: filter, page: page)  // clamped to 1...maximumPage
    }

    /// A page past the last: 404, with the last page named and linked (the search kept), rather
    /// than an empty list that looks like the end of the fleet.
    private static func pastTheLastPage(_ search: DeviceSearch, page: DeviceSearch.Page, signedIn viewer: DashboardViewer) -> Response {
        DashboardLayout.page("No such page", signedIn: viewer, status: .notFound) {
            DeviceListPage.pastTheLastPage(search, page: page)
        }
    }
}
