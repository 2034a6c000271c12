import Foundation
import HandoverProtocol
import HandoverSchema

/// One page of the fleet's devices: a search on name and serial number, a status, and the
/// filters an IT team asks for first (out of service, overdue, a failed run in the last 24 h).
/// Retired devices are listed apart: only their own filter (or the `retired` status) shows them.
/// Paged in the database, sorted by name, so 10,000 devices cost what 50 do.
package struct DeviceSearch: Sendable, Equatable {
    /// A ready-made filter.
    package enum Filter: String, Sendable, CaseIterable {
        case all
        case outOfService = "out-of-service"
        case overdue
        case failedLastDay = "failed-24h"
        /// The devices that left the fleet; every other view leaves them out.
        case retired

        /// What the dashboard calls it.
        package var label: String {
            switch self {
            case .all: "All"
            case .outOfService: "Out of service"
            case .overdue: "Overdue"
            case .failedLastDay: "Failed in the last 24 h"
            case .retired: "Retired"
            }
        }
    }

    /// Devices per page.
    package static let pageSize = 50
    /// The last page anyone may ask for: a page is clamped to `1...maximumPage`, so its offset,
    /// `(page - 1) * pageSize`, never overflows (issue 63).
    package static let maximumPage = 100_000

    /// Text in the name or the serial number, any case; empty for every device.
    package var text: String
    package var status: DeviceStatus?
    package var filter: Filter
    /// 1-based, at most ``maximumPage``.
    package var page: Int
    /// The sites whose devices the searcher may see.
    package var sites: SiteFilter

    package init(text: String = "", status: DeviceStatus? = nil, filter: Filter = .all, page: Int = 1, sites: SiteFilter = .everySite) {
        self.text = String(text.trimmingCharacters(in: .whitespacesAndNewlines).prefix(100))
        self.status = status
        self.filter = filter
        self.page = min(max(1, page), Self.maximumPage)
        self.sites = sites
    }

    /// A page and how many devices match in all.
    package struct Page: Sendable {
        package var devices: [Device]
        package var total: Int
        /// 1-based, at most ``DeviceSearch/maximumPage`` (whatever number a caller passes), so a page
        /// before or after it is one subtraction or addition away without overflow.
        package private(set) var page: Int
        /// At least 1; `total` is never rounded up past `Int.max`.
        package var pageCount: Int { max(1, total / DeviceSearch.pageSize + (total % DeviceSearch.pageSize == 0 ? 0 : 1)) }

        package init(devices: [Device], total: Int, page: Int) {
            self.devices = devices
            self.total = total
            self.page = min(max(1, page), DeviceSearch.maximumPage)
        }
    }

    /// The page asked for: the devices that match, counted and paged in the database
    /// (``DeviceStore/search(_:limit:offset:now:)``).
    package func run(on database: DatabaseHandle, now: Date) async throws -> Page {
        let offset = (min(max(1, page), Self.maximumPage) - 1) * Self.pageSize  // bounded again: `page` is settable after init
        let found = try await DeviceStore(database).search(self, limit: Self.pageSize, offset: offset, now: now)
        return Page(devices: found.devices, total: found.total, page: page)
    }
}
