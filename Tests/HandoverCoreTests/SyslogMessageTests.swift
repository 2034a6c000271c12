import Foundation
@testable import HandoverCore
import Testing
import TransparencyLog

/// The audit log's syslog messages, as RFC 5424 writes them and RFC 5425 frames them.
@Suite struct SyslogMessageTests {
    @Test func anEntryIsAnRFC5424MessageWithItsStructuredData() throws {
        let device = UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!
        let event = AuditEvent(type: "device.run_completed", at: Date(timeIntervalSince1970: 1_795_000_000.25), actor: .server, device: device,
                               detail: ["from": "handing_over"])
        let leaf = try event.leaf()
        let text = SyslogMessage.format(.entry(index: 42, leaf: leaf, leafHash: Data(MerkleHash.leaf(leaf).bytes), site: #"Ward "7"]\"#),
                                        hostname: "handover.example.org")
        // §6: HEADER SP STRUCTURED-DATA SP MSG; §6.3.3: '"', '\' and ']' escaped in a value; §6.4: a BOM before UTF-8.
        let expected = "<110>1 2026-11-18T11:06:40.250Z handover.example.org handover - device.run_completed [handover@32473 index=\"42\" "
            + "leafHash=\"\(MerkleHash.leaf(leaf).base64)\" device=\"6f9619ff-8b86-d011-b42d-00c04fc964ff\" site=\"Ward \\\"7\\\"\\]\\\\\"] \u{FEFF}"
            + String(decoding: leaf, as: UTF8.self)
        #expect(text == expected)
        // RFC 5425 §4.3: MSG-LEN (octets, not characters) SP SYSLOG-MSG.
        let frame = SyslogMessage.frame(text)
        #expect(frame.starts(with: Array("\(Array(text.utf8).count) <110>1 ".utf8)))
    }

    @Test func aCheckpointCarriesItsSizeAndRoot() {
        let root = MerkleHash.leaf([1])
        let text = SyslogMessage.format(.checkpoint(size: 7, rootHash: root, note: "o\n7\n\(root.base64)\n"), hostname: "")
        #expect(text.contains(" - handover - audit.checkpoint [handover@32473 size=\"7\" rootHash=\"\(root.base64)\"] \u{FEFF}o\n7\n"), "\(text)")
    }
}
