import Foundation
import TransparencyLog

/// What goes to a SIEM: one audit entry, or one signed checkpoint, in the log's order.
package enum SIEMMessage: Sendable {
    case entry(index: Int, leaf: Data, leafHash: Data, site: String?)
    case checkpoint(size: Int, rootHash: MerkleHash, note: String)

    /// The entry's decoded event, when it is one.
    var event: AuditEvent? {
        guard case .entry(_, let leaf, _, _) = self else { return nil }
        return try? AuditEvent.decode(leaf: leaf)
    }
}

/// A SIEM the audit log streams to.
package protocol SIEMDestination: Sendable {
    /// Its name in the delivery log (no secret in it).
    var name: String { get }
    /// Sends `messages` in order; returns once the destination has them, throws otherwise.
    func send(_ messages: [SIEMMessage]) async throws
}

/// Writes audit messages as RFC 5424 syslog messages.
///
/// - PRI `<110>`: facility 13 (log audit), severity 6 (informational) (§6.2.1); `<106>`,
///   severity 2 (critical), for an `audit.alarm` entry.
/// - VERSION 1; TIMESTAMP the entry's own time (§6.2.3); HOSTNAME the server's public host;
///   APP-NAME `handover`; PROCID `-`; MSGID the entry's type, such as `run.receipt`, or
///   `audit.checkpoint` (§6.2.7: at most 32 printable characters).
/// - STRUCTURED-DATA `[handover@32473 …]`: the index, leaf hash, device, run and site (§6.3; 32473
///   is the enterprise number RFC 5612 reserves for documentation: Handover has none of its own).
/// - MSG: a BOM and the entry's exact bytes (UTF-8 JSON, which has no raw control character), or
///   the signed checkpoint with its line feeds written `\n` (§6.4: control characters in MSG are
///   the application's to escape; a note is lines of text, and a receiver that reads a message
///   per line would cut it): see ``escaped(_:)``. One message is one line.
package enum SyslogMessage {
    package static let structuredDataID = "handover@32473"

    package static func format(_ message: SIEMMessage, hostname: String) -> String {
        switch message {
        case .entry(let index, let leaf, let leafHash, let site):
            let event = message.event
            var parameters = [("index", String(index)), ("leafHash", leafHash.base64EncodedString())]
            if let device = event?.device { parameters.append(("device", device.uuidString.lowercased())) }
            if let run = event?.run { parameters.append(("run", run.uuidString.lowercased())) }
            if let site { parameters.append(("site", site)) }
            // An alarm of the log itself is critical (severity 2: PRI 106); every other entry informational.
            return header(msgID: event?.type ?? "audit.entry", time: event?.at, hostname: hostname,
                          severity: event?.type == AuditEvent.alarmType ? 2 : 6)
                + " " + structuredData(parameters) + " \u{FEFF}" + String(decoding: leaf, as: UTF8.self)
        case .checkpoint(let size, let root, let note):
            return header(msgID: "audit.checkpoint", time: nil, hostname: hostname)
                + " " + structuredData([("size", String(size)), ("rootHash", root.base64)]) + " \u{FEFF}" + escaped(note)
        }
    }

    /// `text` on one line: a backslash is written `\\`, a line feed `\n`, a carriage return `\r`, a
    /// tab `\t`, and any other control character (U+0000–U+001F, U+007F) `\u00XX`, as JSON writes
    /// them; undoing these gives the text back byte for byte (docs/audit.md says how to verify a
    /// checkpoint received by syslog).
    package static func escaped(_ text: String) -> String {
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count + 16)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                result += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16, uppercase: true)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// RFC 5425 §4.3: `MSG-LEN SP SYSLOG-MSG`, the length in octets.
    package static func frame(_ message: String) -> [UInt8] {
        let bytes = Array(message.utf8)
        return Array("\(bytes.count) ".utf8) + bytes
    }

    private static func header(msgID: String, time: String?, hostname: String, severity: Int = 6) -> String {
        let id = String(msgID.unicodeScalars.filter { $0.value >= 33 && $0.value <= 126 }.prefix(32).map(Character.init))
        let host = String(hostname.unicodeScalars.filter { $0.value >= 33 && $0.value <= 126 }.prefix(255).map(Character.init))
        return "<\(13 * 8 + severity)>1 \(time ?? RunReceiptTime.now()) \(host.isEmpty ? "-" : host) handover - \(id.isEmpty ? "-" : id)"
    }

    /// §6.3.3: `"`, `\` and `]` are escaped with a backslash in a PARAM-VALUE.
    private static func structuredData(_ parameters: [(String, String)]) -> String {
        let body = parameters.map { name, value -> String in
            let escaped = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                .replacingOccurrences(of: "]", with: "\\]")
            return name + "=\"" + escaped + "\""
        }.joined(separator: " ")
        return "[\(structuredDataID) \(body)]"
    }
}

/// The current time as receipts and entries write it.
enum RunReceiptTime {
    static func now() -> String { AuditEvent(type: "", at: Date()).at }
}
