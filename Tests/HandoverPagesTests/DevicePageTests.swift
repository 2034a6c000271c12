import Foundation
import HandoverCore
import HandoverPages
import HandoverProtocol
import HandoverSchema
import Testing

/// A device's page, rendered from plain values for viewers of each role.
@Suite struct DevicePageTests {
    static func viewer(_ grants: String) -> DashboardViewer {
        .fixture(grants)
    }

    static func device(_ status: DeviceStatus) -> Device {
        let device = Device(name: "icu-phone-1", createdAt: Date(timeIntervalSince1970: 1_700_000_000))
        device.id = UUID(uuidString: "00000000-0000-0000-0000-0000000000D1")
        device.status = status
        device.statusReason = "<script>mail still signed in</script>"
        return device
    }

    @Test func anOperatorGetsTheFormsAViewerNone() {
        let device = Self.device(.outOfService)
        let operatorPage = DevicePage.body(device, records: .init(), viewer: Self.viewer("operator"), error: nil).rendered
        #expect(operatorPage.contains("<section id=\"back-in-service\">"))
        #expect(operatorPage.contains("action=\"/dashboard/devices/00000000-0000-0000-0000-0000000000d1/back-in-service\""))
        #expect(operatorPage.contains("<section id=\"hand-over\">"))
        #expect(!operatorPage.contains("<section id=\"retire\">"), "retiring is an admin's")
        let viewerPage = DevicePage.body(device, records: .init(), viewer: Self.viewer("viewer"), error: "refused").rendered
        #expect(!viewerPage.contains("<form"))
        #expect(viewerPage.contains("<p class=\"error\" role=\"alert\">refused</p>"))
        let adminPage = DevicePage.body(device, records: .init(), viewer: Self.viewer("admin"), error: nil).rendered
        #expect(adminPage.contains("<section id=\"retire\">"))
        #expect(adminPage.contains("action=\"/dashboard/devices/00000000-0000-0000-0000-0000000000d1/delete\""))
    }

    @Test func theReasonIsEscapedAndAnEmptyHistorySaysSo() {
        let html = DevicePage.body(Self.device(.outOfService), records: .init(), viewer: Self.viewer("viewer"), error: nil).rendered
        #expect(html.contains("&lt;script&gt;mail still signed in&lt;/script&gt;"))
        #expect(!html.contains("<script>"))
        #expect(html.contains("Nothing yet: no run has started on this device."))
        #expect(html.contains("<section id=\"key\">"))
        #expect(html.contains("<section id=\"custody\">"))
        #expect(!html.contains("<section id=\"mdm\">"), "no MDM command, no section")
    }

    @Test func aRowPerHistoryEntryLinkingItsRun() {
        let run = UUID()
        let entries: [DeviceHistoryEntry] = [(DeviceHistoryEvent.runStarted, Optional(run)), (.runFailed, nil)].map { event, runID in
            let entry = DeviceHistoryEntry()
            entry.event = event
            entry.fromStatus = .inService
            entry.toStatus = .outOfService
            entry.runID = runID
            entry.actor = "launcher"
            entry.createdAt = Date(timeIntervalSince1970: 1_700_000_000)
            return entry
        }
        let html = DevicePage.history(entries).rendered
        #expect(html.components(separatedBy: "<tr>").count - 1 == 3)
        #expect(html.contains("<a href=\"\(DashboardLinks.run(run))\">run started</a>"))
        #expect(html.contains("<td>run failed</td>"))
    }
}
