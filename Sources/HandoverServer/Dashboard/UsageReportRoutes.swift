import Foundation
import HandoverCore
import HandoverPages
import Vapor

/// `/dashboard/reports/usage`: the weekly usage report (``UsageReport``) of the sites the session
/// sees, for any role: devices in use per shift, hand-overs and how they ended, failures by app,
/// devices not seen all week. `?week=2026-W48` picks the week (the current one by default);
/// `/dashboard/reports/usage.csv` gives the same figures as CSV.
struct UsageReportRoutes: RouteCollection {
    let auth: DashboardAuth
    let shifts: ShiftCalendar

    func boot(routes: RoutesBuilder) throws {
        let reports = routes.grouped("dashboard", "reports")
        reports.get("usage", use: page)
        reports.get("usage.csv", use: csv)
    }

    /// The week the query names, or the current one; a name that is not a week is refused by name.
    private func weekStart(_ request: Request) throws -> Date {
        guard let text = request.query[String.self, at: "week"], !text.isEmpty else { return shifts.weekStart(of: auth.clock.now()) }
        guard let start = shifts.weekStart(named: text) else {
            throw DashboardError(status: .badRequest, message: "week: '\(text.prefix(40))' is not an ISO week. Accepted: YYYY-Www, such as \(shifts.weekName(shifts.weekStart(of: auth.clock.now()))).")
        }
        return start
    }

    @Sendable func csv(_ request: Request) async throws -> Response {
        try await auth.signedIn(request) { viewer in
            let report = try await UsageReportStore.read(weekStarting: try weekStart(request), calendar: shifts, sites: viewer.siteFilter, on: auth.databases.reads)
            let response = Response(status: .ok, body: .init(string: report.csv))
            response.headers.replaceOrAdd(name: .contentType, value: "text/csv; charset=utf-8")
            response.headers.replaceOrAdd(name: .contentDisposition, value: "attachment; filename=\"usage-\(report.week).csv\"")
            return response
        }
    }

    @Sendable func page(_ request: Request) async throws -> Response {
        try await auth.signedIn(request) { viewer in
            let start = try weekStart(request)
            let report = try await UsageReportStore.read(weekStarting: start, calendar: shifts, sites: viewer.siteFilter, on: auth.databases.reads)
            let previous = shifts.weekName(shifts.weekStart(of: start.addingTimeInterval(-86_400)))
            let next = shifts.weekName(report.end)
            return DashboardLayout.page("Usage, week \(report.week)", signedIn: viewer) {
                HTML.element("p") {
                    HTML.element("a", ["href": "?week=\(previous)"]) { "← \(previous)" }
                    " · \(DashboardLayout.time(report.start)) to \(DashboardLayout.time(report.end)) (\(shifts.timeZone.identifier)) · "
                    HTML.element("a", ["href": "?week=\(next)"]) { "\(next) →" }
                    " · "; HTML.element("a", ["href": "/dashboard/reports/usage.csv?week=\(report.week)"]) { "CSV" }
                }
                Self.summary(report)
                Self.inUse(report)
                Self.failures(report)
                Self.notSeen(report)
            }
        }
    }

    private static func summary(_ report: UsageReport) -> HTML {
        .element("section", ["id": "usage-summary"]) {
            HTML.element("h2") { "Hand-overs by site" }
            if report.sites.isEmpty {
                HTML.element("p", ["class": "note"]) { "No device at the sites you see." }
            } else {
                HTML.element("table", ["id": "usage-sites"]) {
                    HTML.element("tr") {
                        for title in ["Site", "Devices", "Hand-overs", "Completed", "Failed", "Running", "Not seen"] { HTML.element("th") { title } }
                    }
                    for site in report.sites {
                        HTML.element("tr") {
                            HTML.element("td") { site.site ?? "no site" }
                            for value in [site.devices, site.handOvers, site.completed, site.failed, site.running, site.notSeenCount] {
                                HTML.element("td") { String(value) }
                            }
                        }
                    }
                }
            }
        }
    }

    private static func inUse(_ report: UsageReport) -> HTML {
        .element("section", ["id": "usage-shifts"]) {
            HTML.element("h2") { "Devices in use per shift" }
            HTML.element("div", ["class": "scroll"]) {
                HTML.element("table", ["id": "usage-in-use"]) {
                    HTML.element("tr") {
                        HTML.element("th") { "Shift" }
                        for site in report.sites { HTML.element("th") { site.site ?? "no site" } }
                    }
                    for (index, name) in report.shiftNames.enumerated() {
                        HTML.element("tr") {
                            HTML.element("td") { name }
                            for site in report.sites { HTML.element("td") { String(site.inUse[index]) } }
                        }
                    }
                }
            }
        }
    }

    private static func failures(_ report: UsageReport) -> HTML {
        .element("section", ["id": "usage-failures"]) {
            HTML.element("h2") { "Apps that did not sign out" }
            let rows = report.sites.flatMap { site in site.failuresByApp.map { (site.site, $0) } }
            if rows.isEmpty {
                HTML.element("p", ["class": "note"]) { "Every app signed out in every hand-over this week." }
            } else {
                HTML.element("table", ["id": "usage-app-failures"]) {
                    HTML.element("tr") { HTML.element("th") { "Site" }; HTML.element("th") { "App" }; HTML.element("th") { "Times" } }
                    for (site, failure) in rows {
                        HTML.element("tr") {
                            HTML.element("td") { site ?? "no site" }; HTML.element("td") { failure.app }; HTML.element("td") { String(failure.count) }
                        }
                    }
                }
            }
        }
    }

    private static func notSeen(_ report: UsageReport) -> HTML {
        .element("section", ["id": "usage-not-seen"]) {
            HTML.element("h2") { "Devices not seen all week" }
            let sites = report.sites.filter { $0.notSeenCount > 0 }
            if sites.isEmpty {
                HTML.element("p", ["class": "note"]) { "Every device was held or handed over this week." }
            } else {
                for site in sites {
                    HTML.element("p") {
                        HTML.element("strong") { "\(site.site ?? "no site") (\(site.notSeenCount)): " }
                        site.notSeen.joined(separator: ", ") + (site.notSeenCount > site.notSeen.count ? ", …" : "")
                    }
                }
            }
        }
    }
}
