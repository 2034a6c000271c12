import Foundation
import HandoverCore
import HandoverPages
import Testing
import TransparencyLog

/// The Audit page from plain values: the log's size, its checkpoint or none yet, the verifier
/// key escaped, a SIEM's delivery log (how far behind, its last error), and how to configure a
/// SIEM when none is.
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

    @Test func aCheckpointAndEachSIEMsDeliveryLog() throws {
        let at = Date(timeIntervalSince1970: 1_795_000_000)
        let checkpoint = AuditLog.StoredCheckpoint(size: 40, rootHash: try #require(MerkleHash(bytes: [UInt8](repeating: 7, count: 32))),
                                                   note: "handover\n40\n", createdAt: at)
        let syslog = SIEMStream.Status(destination: "syslog", delivered: 40, attempts: 0, nextAttemptAt: at, deliveredAt: at)
        let splunk = SIEMStream.Status(destination: "splunk", delivered: 30, attempts: 3, lastError: "HTTP <503>", nextAttemptAt: at)
        let html = AuditPage.body(size: 42, checkpoint: checkpoint, verifierKey: "k", destinations: [syslog, splunk], streams: [],
                                  received: []).rendered
        #expect(html.contains("40 entries, signed \(DashboardLayout.time(at))"))
        #expect(html.contains("<td><code>syslog</code></td><td>40</td><td>2</td>"), "two entries behind")
        #expect(html.contains("<td><code>splunk</code></td><td>30</td><td>12</td><td>never</td><td>3</td><td>HTTP &lt;503&gt;</td>"))
        #expect(!html.contains("No SIEM is configured"))
    }
}
