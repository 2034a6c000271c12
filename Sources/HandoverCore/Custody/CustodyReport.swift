import Foundation
import HandoverProtocol
import HandoverSchema

/// Who held which device, when, and how each hand-over ended (issue 40): the rows of
/// `GET /api/v1/custody`, the dashboard's custody page and its CSV, and
/// `handover admin custody-report`. Filtered and paged in the database, newest check-out first.
package struct CustodyReport: Sendable {
    /// Rows per page.
    package static let pageSize = 100
    /// The last page anyone may ask for (`openapi.yaml` declares it as `page`'s maximum): a page
    /// is clamped to `1...maximumPage`, so its offset, `(page - 1) * pageSize`, never overflows
    /// (`page=9223372036854775807` trapped there and took the server down, issue 63).
    package static let maximumPage = 100_000

    /// Check-outs at or after this time.
    package var from: Date?
    /// Check-outs before this time.
    package var to: Date?
    package var device: UUID?
    /// A person's user id.
    package var person: UUID?
    /// Text in the person's name or email, any case.
    package var personText: String?
    /// The sites the reader may see.
    package var sites: SiteFilter
    /// 1-based, at most ``maximumPage``.
    package var page: Int

    package init(from: Date? = nil, to: Date? = nil, device: UUID? = nil, person: UUID? = nil, personText: String? = nil,
                 sites: SiteFilter = .everySite, page: Int = 1) {
        self.from = from
        self.to = to
        self.device = device
        self.person = person
        self.personText = personText.flatMap { $0.isEmpty ? nil : String($0.prefix(100)) }
        self.sites = sites
        self.page = min(max(1, page), Self.maximumPage)
    }

    /// One custody as reported.
    package struct Row: Sendable, Equatable {
        package var id: UUID
        package var deviceID: UUID
        package var deviceName: String
        package var site: String?
        package var userID: UUID
        package var personName: String?
        package var personEmail: String?
        package var checkedOutBy: String
        package var checkedOutAt: Date
        package var checkedInAt: Date?
        package var runID: UUID?
        package var runStatus: LogoutRunState?
        /// The apps of the hand-over that did not sign out (failed, timed out, or still pending).
        package var appsLeftSignedIn: [String]
        package var endedWithoutRun: String?
    }


    package struct Page: Sendable {
        package var rows: [Row]
        package var total: Int
        /// 1-based, at most ``CustodyReport/maximumPage`` (whatever number a caller passes), so a page
        /// before or after it is one subtraction or addition away without overflow.
        package private(set) var page: Int
        /// At least 1; `total` is never rounded up past `Int.max`.
        package var pageCount: Int { max(1, total / CustodyReport.pageSize + (total % CustodyReport.pageSize == 0 ? 0 : 1)) }

        package init(rows: [Row], total: Int, page: Int) {
            self.rows = rows
            self.total = total
            self.page = min(max(1, page), CustodyReport.maximumPage)
        }
    }

    /// A page of the rows, newest check-out first (``CustodyStore``).
    package func run(on database: DatabaseHandle, pageSize: Int = CustodyReport.pageSize) async throws -> Page {
        guard let store = CustodyStore(database) else { throw DomainError(.storage, code: "storage", reason: "The database does not speak SQL.") }
        return try await store.page(of: self, pageSize: pageSize)
    }

    /// The rows as CSV (RFC 4180, formulas neutralised): one line per custody.
    package static func csv(_ rows: [Row]) -> String {
        let header = ["device", "deviceID", "site", "person", "email", "userID", "checkedOutBy", "checkedOutAt", "checkedInAt", "runID",
                      "outcome", "appsLeftSignedIn"]
        let iso = Date.ISO8601FormatStyle()
        let lines = rows.map { row in
            [row.deviceName, row.deviceID.uuidString.lowercased(), row.site ?? "", row.personName ?? "", row.personEmail ?? "",
             row.userID.uuidString.lowercased(), row.checkedOutBy, row.checkedOutAt.formatted(iso), row.checkedInAt?.formatted(iso) ?? "",
             row.runID?.uuidString.lowercased() ?? "", row.runStatus?.rawValue ?? (row.checkedInAt == nil ? "held" : row.endedWithoutRun ?? ""),
             row.appsLeftSignedIn.joined(separator: " ")]
        }
        return CSVWriter.render([header] + lines)
    }
}

extension CustodyReport.Row {
    /// A custody just written (a check-out): the row the report will hold for it, its run not
    /// started yet.
    package init(_ custody: Custody, deviceName: String) throws {
        self.init(id: try custody.storedID, deviceID: custody.deviceID, deviceName: deviceName, site: custody.site, userID: custody.userID,
                  personName: custody.personName, personEmail: custody.personEmail, checkedOutBy: custody.checkedOutBy,
                  checkedOutAt: custody.checkedOutAt, checkedInAt: custody.checkedInAt, runID: custody.runID, runStatus: nil,
                  appsLeftSignedIn: [], endedWithoutRun: custody.endedWithoutRun)
    }
}
