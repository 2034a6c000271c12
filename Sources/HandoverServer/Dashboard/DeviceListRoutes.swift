import Foundation
import HandoverCore
import HandoverProtocol
import HandoverPages
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
                if viewer.may(.operator, everySite: false) {  // DeviceFormRoutes' need
                    HTML.element("p") {
                        HTML.element("a", ["href": "/dashboard/devices/new"]) { "Add a device" }; " · "
                        HTML.element("a", ["href": "/dashboard/devices/import"]) { "Import devices (CSV)" }
                    }
                }
                Self.form(search)
                HTML.element("p", ["class": "note", "id": "matches"]) {
                    "\(page.total) device\(page.total == 1 ? "" : "s")" + (search == DeviceSearch(sites: search.sites) ? "" : " match")
                        + (page.total > DeviceSearch.pageSize ? " · page \(page.page) of \(page.pageCount)" : "")
                }
                if page.devices.isEmpty {
                    HTML.element("p", ["class": "note"]) { "No device matches. Clear the search to see them all." }
                } else {
                    HTML.element("div", ["class": "scroll"]) {
                        HTML.element("table", ["id": "devices"]) {
                            HTML.element("tr") {
                                HTML.element("th") { "Device" }; HTML.element("th") { "Site" }; HTML.element("th") { "Serial number" }
                                HTML.element("th") { "Status" }; HTML.element("th") { "Last run" }
                            }
                            for device in page.devices {
                                let last = device.lastRunID.flatMap { lastRuns[$0] }
                                HTML.element("tr") {
                                    HTML.element("td") { DashboardLinks.device(device) }
                                    HTML.element("td") { device.site ?? "—" }
                                    HTML.element("td") { device.serialNumber ?? "—" }
                                    HTML.element("td") { DashboardLayout.badge(device.status) }
                                    HTML.element("td") {
                                        if let last, let id = last.id {
                                            DashboardLayout.badge(last.status); " "
                                            HTML.element("a", ["href": DashboardLinks.run(id)]) { DashboardLayout.time(last.createdAt) }
                                        } else { "never" }
                                    }
                                }
                            }
                        }
                    }
                }
                Self.pager(search, page: page)
            }
        }
    }

    /// The search the query string asks for; unknown values fall back to "all" and page 1.
    static func search(from request: Request) -> DeviceSearch {
        let text = (try? request.query.get(String.self, at: "q")) ?? ""
        let status = ((try? request.query.get(String.self, at: "status")) ?? "").flatMap { DeviceStatus(rawValue: $0) }
        let filter = ((try? request.query.get(String.self, at: "filter")) ?? "").flatMap { DeviceSearch.Filter(rawValue: $0) } ?? .all
        let page = (try? request.query.get(Int.self, at: "page")) ?? 1
        return DeviceSearch(text: text, status: status, filter: filter, page: page)  // clamped to 1...maximumPage
    }

    /// The link to a view of the list.
    static func link(_ search: DeviceSearch) -> String {
        var items: [URLQueryItem] = []
        if !search.text.isEmpty { items.append(URLQueryItem(name: "q", value: search.text)) }
        if let status = search.status { items.append(URLQueryItem(name: "status", value: status.rawValue)) }
        if search.filter != .all { items.append(URLQueryItem(name: "filter", value: search.filter.rawValue)) }
        if search.page > 1 { items.append(URLQueryItem(name: "page", value: String(search.page))) }
        var components = URLComponents()
        components.path = "/dashboard/devices"
        components.queryItems = items.isEmpty ? nil : items
        return components.string ?? "/dashboard/devices"
    }

    private static func form(_ search: DeviceSearch) -> HTML {
        .element("form", ["method": "get", "action": "/dashboard/devices", "class": "search", "role": "search"]) {
            HTML.element("label") {
                "Name or serial number "
                HTML.element("input", ["type": "search", "name": "q", "value": search.text, "maxlength": "100", "autofocus": "autofocus"])
            }
            HTML.element("label") {
                " Status "
                HTML.element("select", ["name": "status"]) {
                    HTML.element("option", ["value": ""]) { "any" }
                    for status in DeviceStatus.allCases {
                        HTML.element("option", search.status == status ? ["value": status.rawValue, "selected": "selected"] : ["value": status.rawValue]) {
                            status.rawValue.replacingOccurrences(of: "_", with: " ")
                        }
                    }
                }
            }
            " "
            HTML.element("button", ["type": "submit"]) { "Search" }
            HTML.element("p", ["class": "filters"]) {
                for filter in DeviceSearch.Filter.allCases {
                    let target = DeviceSearch(text: search.text, status: search.status, filter: filter)
                    if filter == search.filter {
                        HTML.element("strong") { filter.label }
                    } else {
                        HTML.element("a", ["href": link(target)]) { filter.label }
                    }
                    " "
                }
            }
        }
    }

    /// A page past the last: 404, with the last page named and linked (the search kept), rather
    /// than an empty list that looks like the end of the fleet.
    private static func pastTheLastPage(_ search: DeviceSearch, page: DeviceSearch.Page, signedIn viewer: DashboardViewer) -> Response {
        var last = search
        last.page = page.pageCount
        return DashboardLayout.page("No such page", signedIn: viewer, status: .notFound) {
            HTML.element("h2") { "No such page" }
            HTML.element("p") {
                "There is no page \(search.page) of this list: \(page.total) device\(page.total == 1 ? "" : "s")"
                    + (search == DeviceSearch(page: search.page, sites: search.sites) ? "" : " match") + ", and the last is page \(page.pageCount). "
                HTML.element("a", ["href": link(last)]) { "Go to page \(page.pageCount)" }
            }
        }
    }

    private static func pager(_ search: DeviceSearch, page: DeviceSearch.Page) -> HTML {
        guard page.pageCount > 1 else { return .join([]) }
        var previous = search
        previous.page = page.page - 1
        var next = search
        next.page = page.page + 1
        return .element("nav", ["class": "pager", "aria-label": "pages"]) {
            if page.page > 1 { HTML.element("a", ["href": link(previous), "rel": "prev"]) { "← Previous" } }
            " Page \(page.page) of \(page.pageCount) "
            if page.page < page.pageCount { HTML.element("a", ["href": link(next), "rel": "next"]) { "Next →" } }
        }
    }

}
