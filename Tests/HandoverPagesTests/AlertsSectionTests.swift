import Foundation
import HandoverCore
import HandoverPages
import Testing

/// The alerts table, rendered from plain values. (``HandoverCore/DeviceAlert`` has no `package`
/// initialiser, so rows are covered by the server's DeviceAlertTests.)
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
}
