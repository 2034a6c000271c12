import Foundation
import HandoverCore
import HandoverPages
import Testing

/// The alerts table, rendered from plain values: a row per alert, open ones counted, the
/// acknowledge button only where the viewer's role at the device's site allows it.
@Suite struct AlertsSectionTests {
    static func viewer(_ grants: String) -> DashboardViewer {
        .fixture(grants)
    }

    @Test func noAlertShowsTheEmptyText() {
        let html = AlertsSection.html([], viewer: Self.viewer("viewer"), emptyText: AlertsSection.emptyText).rendered
        #expect(html.hasPrefix("<section id=\"alerts\">"))
        #expect(html.contains("Alerts (0 to acknowledge)"))
        #expect(html.contains("No device needs a person: nothing is overdue, unseen or in Lost Mode."))
        #expect(!html.contains("alert-list"))
    }

    @Test func theEmptyTextIsEscaped() {
        let html = AlertsSection.html([], viewer: Self.viewer("admin"), emptyText: "<script>x</script>").rendered
        #expect(html.contains("&lt;script&gt;x&lt;/script&gt;"))
        #expect(!html.contains("<script>"))
    }

    static func alert(_ name: String, site: String?, acknowledgedBy: String? = nil, cleared: Bool = false) -> DeviceAlert {
        let at = Date(timeIntervalSince1970: 1_795_000_000)
        return DeviceAlert(id: UUID(), device: UUID(), cause: .overdue, deviceName: name, site: site, detail: "held 14 h", raisedAt: at,
                           clearedAt: cleared ? at : nil, acknowledgedAt: acknowledgedBy == nil ? nil : at, acknowledgedBy: acknowledgedBy)
    }

    @Test func eachAlertHasItsRowAndTheButtonWhereTheRoleAllowsIt() {
        let alerts = [Self.alert("<b>icu-1</b>", site: "ICU"), Self.alert("ward-7", site: "Ward 7"),
                      Self.alert("er-1", site: "ER", acknowledgedBy: "Ada"), Self.alert("er-2", site: "ER", cleared: true)]
        let html = AlertsSection.html(alerts, viewer: Self.viewer("operator@ICU,viewer"), emptyText: AlertsSection.emptyText, back: "device").rendered
        #expect(html.contains("Alerts (2 to acknowledge)"), "neither the acknowledged nor the cleared one")
        #expect(html.components(separatedBy: "<tr class=").count - 1 == 4)
        #expect(html.contains("&lt;b&gt;icu-1&lt;/b&gt;"))
        #expect(!html.contains("<b>"))
        #expect(html.components(separatedBy: ">Acknowledge</button>").count - 1 == 1, "an operator at ICU only")
        #expect(html.contains("/dashboard/alerts/\(alerts[0].id.uuidString.lowercased())/acknowledge?back=device"))
        #expect(html.contains("<td>not yet</td>"), "Ward 7's, which the viewer only sees")
        #expect(html.contains("Ada, "))
        #expect(html.contains("<tr class=\"cleared\">"))
    }
}
