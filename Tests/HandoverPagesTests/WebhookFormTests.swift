import Foundation
import HandoverCore
import HandoverPages
import HandoverSchema
import Testing

/// The webhook forms from plain values: a checkbox per event with the chosen ones checked, the
/// URL kept and escaped after a refusal, and the secret shown once.
@Suite struct WebhookFormTests {
    @Test func theFormOffersEveryEventAndKeepsWhatWasSent() {
        let html = WebhookForm.form(csrf: "t", url: "https://x.example/\"><script>", events: ["run.failed"], error: "url: not https").rendered
        #expect(html.components(separatedBy: "name=\"events[]\"").count - 1 == WebhookOutbox.eventTypes.count)
        #expect(html.contains("value=\"run.failed\" checked>"))
        #expect(html.contains("value=\"run.completed\">"))
        #expect(html.contains("value=\"https://x.example/&quot;&gt;&lt;script&gt;\""))
        #expect(!html.contains("<script>"))
        #expect(html.contains("<p class=\"error\" id=\"error\">url: not https</p>"))
    }

    @Test func aNewSecretIsShownWithItsReceiver() {
        let hook = Webhook()
        hook.url = "https://mdm.example.com/hooks/<handover>"
        hook.events = ["run.completed", "run.failed"]
        let html = WebhookForm.secret(hook, secret: "whsec_abc").rendered
        #expect(html.contains("<code id=\"webhook-secret\">whsec_abc</code>"))
        #expect(html.contains("https://mdm.example.com/hooks/&lt;handover&gt;"))
        #expect(html.contains("run.completed, run.failed"))
    }
}
