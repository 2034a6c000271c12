import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TransparencyLog

/// A Splunk HTTP Event Collector: `POST /services/collector/event` with `Authorization: Splunk
/// <token>`, several event objects one after another in one body, each with `time`, `host`,
/// `source` `handover`, `sourcetype` `handover:audit`, indexed `fields` (the entry's index and
/// type, as strings) and `event`, the entry itself ("Format events for HTTP Event Collector";
/// "HTTP Event Collector REST API endpoints"). Sent when Splunk answers `{"text":"Success","code":0}`.
package struct SplunkHECDestination: SIEMDestination {
    package let url: URL
    package let token: String
    package let hostname: String
    package let http: HTTPClient

    package init(url: URL, token: String, hostname: String, http: HTTPClient) {
        self.url = url
        self.token = token
        self.hostname = hostname
        self.http = http
    }

    package var name: String { "splunk:" + url.absoluteString }

    /// Why the collector did not take a batch.
    package struct Refusal: Error, CustomStringConvertible {
        package var status: UInt
        package var body: String
        package var description: String { "HTTP \(status): \(body.prefix(200))" }
    }

    package func send(_ messages: [SIEMMessage]) async throws {
        guard !messages.isEmpty else { return }
        var body = ""
        for message in messages { body += try Self.event(message, hostname: hostname) }
        var request = HTTPClientRequest(url: url.appendingPathComponent("services/collector/event").absoluteString)
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Splunk \(token)")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await http.execute(request, timeout: .seconds(10))
        let answer = String(buffer: try await response.body.collect(upTo: 64 * 1024))
        guard response.status == .ok, answer.replacingOccurrences(of: " ", with: "").contains(#""code":0"#) else {
            throw Refusal(status: response.status.code, body: answer)
        }
    }

    /// One event object.
    static func event(_ message: SIEMMessage, hostname: String) throws -> String {
        func string(_ text: String) throws -> String { String(decoding: try JSONEncoder().encode(text), as: UTF8.self) }
        switch message {
        case .entry(let index, let leaf, _, _):
            let event = message.event
            let time = event.flatMap { try? Date($0.at, strategy: .iso8601) }?.timeIntervalSince1970 ?? Date().timeIntervalSince1970
            return #"{"time":\#(String(format: "%.3f", time)),"host":\#(try string(hostname)),"source":"handover","sourcetype":"handover:audit","fields":{"index":"\#(index)","type":\#(try string(event?.type ?? "audit.entry"))},"event":\#(String(decoding: leaf, as: UTF8.self))}"#
        case .checkpoint(let size, let root, let note):
            return #"{"time":\#(String(format: "%.3f", Date().timeIntervalSince1970)),"host":\#(try string(hostname)),"source":"handover","sourcetype":"handover:audit","fields":{"type":"audit.checkpoint"},"event":{"type":"audit.checkpoint","size":\#(size),"rootHash":\#(try string(root.base64)),"note":\#(try string(note))}}"#
        }
    }
}
