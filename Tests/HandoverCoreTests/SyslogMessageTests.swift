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
        #expect(text.contains(" - handover - audit.checkpoint [handover@32473 size=\"7\" rootHash=\"\(root.base64)\"] \u{FEFF}o\\n7\\n"), "\(text)")
    }

    /// What a receiver does to get the note back: `\n`, `\r`, `\t`, `\uXXXX` and `\\` undone.
    static func unescaped(_ text: String) -> String {
        var result = "", scalars = Array(text.unicodeScalars), index = 0
        while index < scalars.count {
            defer { index += 1 }
            guard scalars[index] == "\\", index + 1 < scalars.count else { result.unicodeScalars.append(scalars[index]); continue }
            index += 1
            switch scalars[index] {
            case "n": result += "\n"
            case "r": result += "\r"
            case "t": result += "\t"
            case "u" where index + 4 < scalars.count:
                let hex = String(String.UnicodeScalarView(scalars[(index + 1)...(index + 4)]))
                result.unicodeScalars.append(UInt32(hex, radix: 16).flatMap(Unicode.Scalar.init) ?? "?")
                index += 4
            default: result.unicodeScalars.append(scalars[index])
            }
        }
        return result
    }

    /// A signed note is lines of text (C2SP signed-note), and a syslog receiver that reads a
    /// message per line (or forwards it as one) cut the checkpoint into pieces (issue 63, finding
    /// 13). RFC 5424 §6.4 leaves control characters in MSG to the application and names an
    /// escape sequence as the way to carry them: a line feed is written `\n`, a carriage return
    /// `\r`, a tab `\t`, any other control character `\u00XX`, and a backslash `\\`, so the note
    /// comes back byte for byte by undoing them. An entry is JSON, which has no raw control
    /// character, so it stays the entry's exact bytes.
    @Test func aCheckpointIsOneLineAndItsNoteComesBack() throws {
        let note = "handover.example.org/audit\n7\nAAEC\n\n\u{2014} handover.example.org/audit sig+/=\n"
        let text = SyslogMessage.format(.checkpoint(size: 7, rootHash: MerkleHash.leaf([1]), note: note + "\\\t\r\u{1}"), hostname: "h")
        let frame = SyslogMessage.frame(text)
        #expect(!frame.contains(0x0A) && !frame.contains(0x0D), "one line: \(text)")
        let message = try #require(text.split(separator: "\u{FEFF}", maxSplits: 1).last.map(String.init))
        #expect(message == "handover.example.org/audit\\n7\\nAAEC\\n\\n\u{2014} handover.example.org/audit sig+/=\\n\\\\\\t\\r\\u0001")
        #expect(Self.unescaped(message) == note + "\\\t\r\u{1}")
        // An entry is its exact bytes: JSON escapes a line feed in a value itself.
        let leaf = try AuditEvent(type: "admin.note", at: Date(timeIntervalSince1970: 0), actor: .server, detail: ["note": "two\nlines"]).leaf()
        let entry = SyslogMessage.format(.entry(index: 1, leaf: leaf, leafHash: Data(MerkleHash.leaf(leaf).bytes), site: nil), hostname: "h")
        #expect(entry.hasSuffix("\u{FEFF}" + String(decoding: leaf, as: UTF8.self)) && !SyslogMessage.frame(entry).contains(0x0A))
    }
}
