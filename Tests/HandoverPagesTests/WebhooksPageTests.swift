import Foundation
import HandoverCore
import HandoverPages
import HandoverProtocol
import HandoverSchema
import Testing

/// The webhooks page, rendered from plain values.
@Suite struct WebhooksPageTests {
    static func viewer(_ grants: String) -> DashboardViewer {
        .fixture(grants)
    }

    @Test func noEndpointSaysSo() {
        let html = WebhooksPage.body([], deliveries: [], viewer: Self.viewer("viewer")).rendered
        #expect(html.contains("<h2>Endpoints (0)</h2>"))
        #expect(html.contains("None yet."))
        #expect(!html.contains("Add a webhook"))
    }

    @Test func anAdminRotatesSecretsAndEachDeliveryHasARow() {
        let hook = Webhook()
        hook.id = UUID()
        hook.url = "https://hooks.example.com/<script>"
        hook.events = ["run.completed"]
        let delivery = WebhookDelivery()
        delivery.webhookID = hook.id!
        delivery.event = "run.completed"
        delivery.status = .failed
        delivery.attempts = 3
        delivery.lastStatusCode = 500
        delivery.createdAt = Date(timeIntervalSince1970: 1_700_000_000)
        let admin = WebhooksPage.body([hook], deliveries: [delivery], viewer: Self.viewer("admin")).rendered
        #expect(admin.contains("/rotate-secret\""))
        #expect(admin.contains("<h2>Add a webhook</h2>"))
        #expect(admin.contains("https://hooks.example.com/&lt;script&gt;"))
        #expect(!admin.contains("<script>"))
        #expect(admin.contains("<td>HTTP 500</td>"))
        let viewer = WebhooksPage.body([hook], deliveries: [delivery], viewer: Self.viewer("viewer")).rendered
        #expect(!viewer.contains("rotate-secret"))
    }
}
