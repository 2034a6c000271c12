import Foundation
import HandoverCore
import HandoverPages
import HandoverProtocol
import HandoverSchema
import Testing

/// The device list, rendered from plain values.
@Suite struct DeviceListPageTests {
    static func viewer(_ grants: String) -> DashboardViewer {
        .fixture(grants)
    }

    static func device(_ name: String, lastRun: UUID? = nil) -> Device {
        let device = Device(name: name, createdAt: Date(timeIntervalSince1970: 1_700_000_000))
        device.id = UUID()
        device.lastRunID = lastRun
        return device
    }

    @Test func aRowPerDeviceWithItsLastRun() {
        let run = LogoutRun()
        run.id = UUID()
        run.status = .failed
        run.createdAt = Date(timeIntervalSince1970: 1_700_000_000)
        let devices = [Self.device("<script>a</script>", lastRun: run.id), Self.device("b")]
        let listing = DeviceSearch.Page(devices: devices, total: 2, page: 1)
        let html = DeviceListPage.body(DeviceSearch(), page: listing, lastRuns: [run.id!: run], viewer: Self.viewer("viewer")).rendered
        #expect(html.contains("<p class=\"note\" id=\"matches\">2 devices</p>"))
        #expect(html.components(separatedBy: "<tr>").count - 1 == 3)
        #expect(html.contains("&lt;script&gt;a&lt;/script&gt;"))
        #expect(!html.contains("<script>a"))
        #expect(html.contains("<a href=\"\(DashboardLinks.run(run.id!))\">2023-11-14 22:13:20</a>"))
        #expect(html.contains("<td>never</td>"))
        #expect(!html.contains("Add a device"), "a viewer does not add devices")
        #expect(!html.contains("class=\"pager\""), "one page, no pager")
    }

    @Test func noMatchSaysSoAndAnOperatorMayAdd() {
        let search = DeviceSearch(text: "nothing")
        let html = DeviceListPage.body(search, page: .init(devices: [], total: 0, page: 1), lastRuns: [:],
                                       viewer: Self.viewer("operator@ICU")).rendered
        #expect(html.contains("0 devices match"))
        #expect(html.contains("No device matches. Clear the search to see them all."))
        #expect(html.contains("<a href=\"/dashboard/devices/new\">Add a device</a>"))
    }

    @Test func thePagerAndTheLinksKeepTheSearch() {
        let search = DeviceSearch(text: "a b", status: .overdue, page: 2)
        #expect(DeviceListPage.link(search) == "/dashboard/devices?q=a%20b&status=overdue&page=2")
        let html = DeviceListPage.pager(search, page: .init(devices: [], total: 120, page: 2)).rendered
        #expect(html.contains("rel=\"prev\""))
        #expect(html.contains("rel=\"next\""))
        #expect(html.contains(" Page 2 of 3 "))
        let past = DeviceListPage.pastTheLastPage(DeviceSearch(page: 9), page: .init(devices: [], total: 120, page: 9)).rendered
        #expect(past.contains("There is no page 9 of this list: 120 devices, and the last is page 3."))
        #expect(past.contains("<a href=\"/dashboard/devices?page=3\">Go to page 3</a>"))
    }

    /// A page number from the query string can be anything an `Int` holds; the pager adds and
    /// subtracts one from it, so the page a `DeviceSearch.Page` carries is bounded to
    /// `1...DeviceSearch.maximumPage`, and its page count cannot overflow either.
    @Test func thePagerOfAnExtremePageNumberAddsAndSubtractsWithinBounds() {
        let highest = DeviceSearch.Page(devices: [], total: Int.max, page: Int.max)
        #expect(highest.page == DeviceSearch.maximumPage)
        #expect(highest.pageCount == Int.max / DeviceSearch.pageSize + 1)
        let html = DeviceListPage.pager(DeviceSearch(page: DeviceSearch.maximumPage), page: highest).rendered
        #expect(html.contains("page=\(DeviceSearch.maximumPage - 1)\"") && html.contains("page=\(DeviceSearch.maximumPage + 1)\""))
        let lowest = DeviceSearch.Page(devices: [], total: 120, page: Int.min)
        #expect(lowest.page == 1)
        #expect(!DeviceListPage.pager(DeviceSearch(), page: lowest).rendered.contains("rel=\"prev\""))
    }
}
