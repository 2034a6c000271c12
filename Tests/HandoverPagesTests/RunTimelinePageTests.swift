import Foundation
import HandoverCore
import HandoverPages
import HandoverProtocol
import HandoverSchema
import Testing

/// A logout run's page, rendered from plain values.
@Suite struct RunTimelinePageTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    static func run(status: LogoutRunState, app: String) -> LogoutRunView {
        let item = LogoutRunView.Item(id: UUID(), appID: UUID(), app: app, position: 0, status: status == .running ? .pending : .succeeded,
                                      attempts: 1, issuedAt: start, deadlineAt: start.addingTimeInterval(20))
        return LogoutRunView(id: UUID(), deviceID: UUID(), status: status, createdAt: start,
                             finishedAt: status == .running ? nil : start.addingTimeInterval(2), items: [item])
    }

    @Test func anEndedRunOffersItsReceiptAndListsItsApps() {
        let run = Self.run(status: .completed, app: "<script>mail</script>")
        let timeline = RunTimeline(run: run, device: "a deleted device", reissues: [], backends: [], webhooks: [])
        let html = RunTimelinePage.body(run, device: nil, timeline: timeline).rendered
        #expect(html.contains(" on a deleted device, started 2023-11-14 22:13:20"))
        #expect(html.contains("<p id=\"receipt\"><a href=\"\(DashboardLinks.run(run.id))/receipt\">"))
        #expect(html.contains("&lt;script&gt;mail&lt;/script&gt;"))
        #expect(!html.contains("<script>mail"))
        #expect(html.contains("<table id=\"timeline-entries\">"))
        #expect(html.components(separatedBy: "<tr class=\"event ").count - 1 == timeline.entries.count)
    }

    @Test func aRunningRunHasNoReceiptYet() {
        let run = Self.run(status: .running, app: "mail")
        let device = Device(name: "icu-phone-1", createdAt: Self.start)
        device.id = run.deviceID
        let timeline = RunTimeline(run: run, device: device.name, reissues: [], backends: [], webhooks: [])
        let html = RunTimelinePage.body(run, device: device, timeline: timeline).rendered
        #expect(!html.contains("id=\"receipt\""))
        #expect(html.contains(">icu-phone-1</a>"))
    }
}
