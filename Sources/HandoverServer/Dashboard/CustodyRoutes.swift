import Foundation
import HandoverCore
import HandoverPages
import Vapor

/// `/dashboard/custody`: who held which device (issue 40). Searched by a person's name or email,
/// one person's page (`?person=<user id>`: every device they held and each hand-over's outcome,
/// linking to its timeline), one device's, or a period (`from`, `to`: a day or a shift); and the
/// same as CSV (`/dashboard/custody.csv`) or JSON (`/dashboard/custody.json`). Only the sites the
/// reader may see.
struct CustodyRoutes: RouteCollection {
    let auth: DashboardAuth

    func boot(routes: RoutesBuilder) throws {
        let dashboard = routes.grouped("dashboard")
        dashboard.get("custody", use: page)
        dashboard.get("custody.csv", use: csv)
        dashboard.get("custody.json", use: json)
    }

    /// The report the query string asks for, within `session`'s sites; unreadable values are ignored.
    private static func report(_ request: Request, viewer: DashboardViewer) -> CustodyReport {
        func text(_ name: String) -> String? { (try? request.query.get(String.self, at: name)).flatMap { $0.isEmpty ? nil : $0 } }
        func date(_ name: String) -> Date? { text(name).flatMap { try? Date($0, strategy: .iso8601) } ?? text(name).flatMap(Self.day) }
        return CustodyReport(from: date("from"), to: date("to"), device: text("device").flatMap(UUID.init(uuidString:)),
                             person: text("person").flatMap(UUID.init(uuidString:)), personText: text("q"), sites: viewer.siteFilter,
                             page: (try? request.query.get(Int.self, at: "page")) ?? 1)
    }

    /// `2026-11-26` as the start of that day (UTC).
    private static func day(_ text: String) -> Date? {
        try? Date(text + "T00:00:00Z", strategy: .iso8601)
    }

    /// The same query string, for the download links.
    private static func query(_ request: Request) -> String {
        request.url.query.map { "?" + $0 } ?? ""
    }

    @Sendable func page(_ request: Request) async throws -> Response {
        try await auth.signedIn(request) { viewer in
            let report = Self.report(request, viewer: viewer)
            let page = try await report.run(on: auth.databases.reads)
            let title = report.person != nil ? (page.rows.first.map { "Devices held by \($0.personName ?? $0.personEmail ?? "this person")" } ?? "Custody")
                : "Custody"
            return DashboardLayout.page(title, signedIn: viewer) {
                HTML.element("form", ["method": "get", "action": "/dashboard/custody", "class": "search"]) {
                    HTML.element("input", ["type": "search", "name": "q", "value": report.personText ?? "", "placeholder": "a person's name or email"])
                    HTML.element("input", ["type": "date", "name": "from", "aria-label": "from"])
                    HTML.element("input", ["type": "date", "name": "to", "aria-label": "to"])
                    HTML.element("button", ["type": "submit"]) { "Search" }
                }
                HTML.element("p", ["class": "note", "id": "custody-count"]) {
                    "\(page.total) custod\(page.total == 1 ? "y" : "ies")"
                    if page.pageCount > 1 { " · page \(page.page) of \(page.pageCount)" }
                    " · "; HTML.element("a", ["href": "/dashboard/custody.csv" + Self.query(request)]) { "CSV" }
                    " · "; HTML.element("a", ["href": "/dashboard/custody.json" + Self.query(request)]) { "JSON" }
                }
                HTML.element("div", ["class": "scroll"]) {
                    HTML.element("table", ["id": "custody"]) {
                        HTML.element("tr") {
                            HTML.element("th") { "Person" }; HTML.element("th") { "Device" }; HTML.element("th") { "Checked out" }
                            HTML.element("th") { "Checked in" }; HTML.element("th") { "Hand-over" }
                        }
                        for row in page.rows {
                            HTML.element("tr") {
                                HTML.element("td") {
                                    HTML.element("a", ["href": "/dashboard/custody?person=\(row.userID.uuidString.lowercased())"]) {
                                        row.personName ?? row.personEmail ?? row.userID.uuidString.lowercased()
                                    }
                                }
                                HTML.element("td") {
                                    HTML.element("a", ["href": "/dashboard/devices/\(row.deviceID.uuidString.lowercased())"]) { row.deviceName }
                                }
                                HTML.element("td") { DashboardLayout.time(row.checkedOutAt) }
                                HTML.element("td") { row.checkedInAt.map(DashboardLayout.time) ?? "holds it" }
                                HTML.element("td") {
                                    if let run = row.runID, let status = row.runStatus {
                                        DashboardLayout.badge(status); " "
                                        HTML.element("a", ["href": DashboardLinks.run(run)]) { "timeline" }
                                        if !row.appsLeftSignedIn.isEmpty { " · still signed in: \(row.appsLeftSignedIn.joined(separator: ", "))" }
                                    } else {
                                        row.endedWithoutRun ?? "—"
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Every page of the report (at most 50,000 rows).
    private func allRows(_ request: Request, viewer: DashboardViewer) async throws -> [CustodyReport.Row] {
        var report = Self.report(request, viewer: viewer)
        report.page = 1
        return try await report.run(on: auth.databases.reads, pageSize: 50_000).rows
    }

    @Sendable func csv(_ request: Request) async throws -> Response {
        try await auth.signedIn(request) { viewer in
            let response = Response(status: .ok, body: .init(string: CustodyReport.csv(try await allRows(request, viewer: viewer))))
            response.headers.replaceOrAdd(name: .contentType, value: "text/csv; charset=utf-8")
            response.headers.replaceOrAdd(name: .contentDisposition, value: "attachment; filename=\"custody.csv\"")
            response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
            return response
        }
    }

    @Sendable func json(_ request: Request) async throws -> Response {
        try await auth.signedIn(request) { viewer in
            let rows = try await allRows(request, viewer: viewer).map(CustodyRecordView.init)
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let response = Response(status: .ok, body: .init(data: try encoder.encode(rows)))
            response.headers.replaceOrAdd(name: .contentType, value: "application/json")
            response.headers.replaceOrAdd(name: .contentDisposition, value: "attachment; filename=\"custody.json\"")
            response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
            return response
        }
    }
}
