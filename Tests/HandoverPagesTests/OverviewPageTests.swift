import Foundation
import HandoverCore
import HandoverPages
import HandoverProtocol
import HandoverSchema
import Testing

/// The overview's blocks, rendered from plain values.
@Suite struct OverviewPageTests {
    static func device(_ name: String, _ status: DeviceStatus, since: TimeInterval) -> Device {
        let device = Device(name: name, createdAt: Date(timeIntervalSince1970: 1_700_000_000))
        device.id = UUID()
        device.status = status
        device.statusChangedAt = Date(timeIntervalSince1970: 1_700_000_000 + since)
        return device
    }

    @Test func theQueueListsTheLongestWaitingFirst() {
        let queue = [Self.device("newer", .overdue, since: 60), Self.device("<script>older</script>", .outOfService, since: 0)]
        let html = OverviewPage.attention(queue: queue, queueTotal: 80, counts: [.overdue: 30, .outOfService: 50]).rendered
        #expect(html.hasPrefix("<section id=\"attention\"><h2>Needs attention (80)</h2>"))
        let older = html.range(of: "&lt;script&gt;older&lt;/script&gt;")
        let newer = html.range(of: ">newer<")
        #expect(older != nil && newer != nil && older!.lowerBound < newer!.lowerBound)
        #expect(html.contains("All 50 out of service"))
        #expect(html.contains("all 30 overdue"))
        #expect(!html.contains("<script>"))
        let empty = OverviewPage.attention(queue: [], queueTotal: 0, counts: [:]).rendered
        #expect(empty.contains("No device is out of service or overdue."))
    }

    @Test func anEmptyFleetSaysHowToStart() {
        let html = OverviewPage.fleet(counts: [:], total: 0, listed: [], runByID: [:], itemsByRun: [:], backends: [:]).rendered
        #expect(html.contains("<h2>Devices (0)</h2>"))
        #expect(html.contains("No devices yet."))
        #expect(!html.contains("<table"))
    }

    @Test func aSmallFleetListsEachDevice() {
        let devices = [Self.device("a", .inService, since: 0), Self.device("b", .handingOver, since: 0)]
        let html = OverviewPage.fleet(counts: [.inService: 1, .handingOver: 1], total: 2, listed: devices, runByID: [:], itemsByRun: [:],
                                      backends: [:]).rendered
        #expect(html.contains("<a href=\"/dashboard/devices?status=in_service\">"))
        #expect(html.components(separatedBy: "<tr>").count - 1 == 3)
        #expect(html.contains("<td>never</td>"))
    }

    @Test func recentRunsNameTheirDeviceOrSayItIsDeleted() {
        let kept = LogoutRun()
        kept.id = UUID()
        kept.deviceID = UUID()
        kept.status = .completed
        kept.createdAt = Date(timeIntervalSince1970: 1_700_000_000)
        let orphan = LogoutRun()
        orphan.id = UUID()
        orphan.deviceID = UUID()
        orphan.status = .running
        orphan.createdAt = Date(timeIntervalSince1970: 1_700_000_000)
        let html = OverviewPage.recentRuns([kept, orphan], deviceNames: [kept.deviceID: "<i>icu</i>"], itemsByRun: [:], backends: [:]).rendered
        #expect(html.contains("<tr data-run=\"\(kept.id!.uuidString.lowercased())\">"))
        #expect(html.contains("<td>&lt;i&gt;icu&lt;/i&gt;</td>"))
        #expect(html.contains("<td>deleted device</td>"))
        let none = OverviewPage.recentRuns([], deviceNames: [:], itemsByRun: [:], backends: [:]).rendered
        #expect(none.contains("No runs yet."))
    }
}
