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
            return DashboardLayout.page("Usage, week \(report.week)", signedIn: viewer) { UsageReportPage.body(report, shifts: shifts) }
        }
    }
}
