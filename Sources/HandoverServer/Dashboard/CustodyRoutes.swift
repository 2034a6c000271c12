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
            return DashboardLayout.page(CustodyPage.title(report, rows: page.rows), signedIn: viewer) {
                CustodyPage.body(report, page: page, query: Self.query(request))
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
