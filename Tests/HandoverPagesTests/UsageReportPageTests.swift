import Foundation
import HandoverCore
import HandoverPages
import Testing

/// The Usage page from plain values: a row per site and per shift, escaped site names, and the
/// empty states' sentences.
@Suite struct UsageReportPageTests {
    static let shifts = ShiftCalendar()

    static func page(_ sites: [UsageReport.SiteUsage]) -> String {
        let start = shifts.weekStart(named: "2026-W48")!
        let report = UsageReport(week: "2026-W48", start: start, end: shifts.weekEnd(start), shifts: [], shiftNames: ["Mon day", "Mon night"],
                                 sites: sites)
        return UsageReportPage.body(report, shifts: shifts).rendered
    }

    @Test func eachSiteHasItsRowAndItsColumnOfShifts() {
        let html = Self.page([
            .init(site: "<script>x</script>", devices: 3, inUse: [2, 1], handOvers: 4, completed: 3, failed: 1,
                  notSeen: ["icu-1"], notSeenCount: 1),
            .init(site: nil, devices: 1, inUse: [0, 1]),
        ])
        #expect(html.contains("&lt;script&gt;x&lt;/script&gt;"))
        #expect(!html.contains("<script>"))
        #expect(html.contains("<td>no site</td>"))
        #expect(html.contains("<td>Mon day</td><td>2</td><td>0</td>"))
        #expect(html.contains("icu-1"))
        #expect(html.contains("?week=2026-W47"), "the week before")
        #expect(html.contains("?week=2026-W49"), "the week after")
        #expect(html.contains("/dashboard/reports/usage.csv?week=2026-W48"))
    }

    @Test func aWeekWithoutDevicesSaysSo() {
        let html = Self.page([])
        #expect(html.contains("No device at the sites you see."))
        #expect(html.contains("Every app signed out in every hand-over this week."))
        #expect(html.contains("Every device was held or handed over this week."))
    }

    @Test func eachAppThatDidNotSignOutHasItsRow() {
        let html = Self.page([
            .init(site: "ICU", devices: 2, inUse: [1, 1], handOvers: 3, completed: 1, failed: 2,
                  failuresByApp: [.init(app: "<i>Mail</i>", count: 2), .init(app: "Chat", count: 1)]),
            .init(site: nil, devices: 1, inUse: [0, 0], failuresByApp: [.init(app: "Chat", count: 1)]),
        ])
        #expect(html.contains("id=\"usage-app-failures\""))
        #expect(html.contains("<tr><td>ICU</td><td>&lt;i&gt;Mail&lt;/i&gt;</td><td>2</td></tr>"))
        #expect(html.contains("<tr><td>ICU</td><td>Chat</td><td>1</td></tr>"))
        #expect(html.contains("<tr><td>no site</td><td>Chat</td><td>1</td></tr>"))
        #expect(!html.contains("Every app signed out in every hand-over this week."))
    }
}
