import Foundation
import HandoverCore
import HandoverPages
import Testing

/// The Audit page from plain values: the log's size, no checkpoint yet, the verifier key
/// escaped, and how to configure a SIEM when none is.
@Suite struct AuditPageTests {
    @Test func aLogWithoutCheckpointOrSIEMSaysSo() {
        let html = AuditPage.body(size: 42, checkpoint: nil, verifierKey: "handover+<key>", destinations: [], streams: [], received: []).rendered
        #expect(html.contains("<tr><th>Entries</th><td>42</td></tr>"))
        #expect(html.contains("<td>none yet</td>"))
        #expect(html.contains("<code>handover+&lt;key&gt;</code>"))
        #expect(html.contains("No SIEM is configured: set HANDOVER_SIEM_SYSLOG"))
        #expect(!html.contains("id=\"siem\""))
        #expect(html.contains("<code>handover audit verify</code>"))
    }
}
