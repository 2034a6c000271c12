import Foundation
@testable import HandoverCore
import Testing

/// The paged lists work out their offset from a page a request chose (issue 63, finding 1: `(page
/// - 1) * pageSize` trapped on `page = Int.max` and took the server down). Whatever page they are
/// given, they answer a page (past the last: empty), never trap.
@Suite(.timeLimit(.minutes(5))) struct PagingArithmeticTests {
    @Test(arguments: DomainStore.available) func theCustodyReportAndTheDeviceSearchTakeAnyPage(store: DomainStore) async throws {
        try await DomainDatabase.with(store) { database in
            _ = try await database.device("ward-7-phone-1")
            for page in [Int.max, Int.max / 2, Int.min, 0, -1, 1] {
                let custody = try await CustodyReport(page: page).run(on: database.db)
                #expect(custody.rows.isEmpty && custody.page >= 1 && custody.page <= CustodyReport.maximumPage, "custody page \(page)")
                let devices = try await DeviceSearch(page: page).run(on: database.db, now: database.clock.now())
                #expect(devices.page >= 1 && devices.page <= DeviceSearch.maximumPage, "device page \(page)")
                #expect(devices.devices.count == (devices.page == 1 ? 1 : 0), "device page \(page)")
            }
        }
    }
}
