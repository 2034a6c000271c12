import Foundation
import HandoverServer
import TestPeers

/// The Shared Signals peers (`Tests/Peers/ssf_receiver.py`, `ssf_transmitter.py`, both on
/// joserfc), driven through their control routes.
enum SharedSignalsPeers {
    static let caep = "https://schemas.openid.net/secevent/caep/event-type/"
    static let risc = "https://schemas.openid.net/secevent/risc/event-type/"
    static let verification = "https://schemas.openid.net/secevent/ssf/event-type/verification"

    static func isAvailable() async -> Bool { await PythonPeer.canImport("joserfc", skipping: "the Shared Signals peers") }

    /// A receiver (a SIEM) of Handover's events, as the registered client `client`.
    final class Receiver: @unchecked Sendable {
        let peer: PythonPeer
        let test: TestServer
        var url: String { "http://127.0.0.1:\(peer.port)" }

        init(test: TestServer, issuer: String, client: (id: String, secret: String)) async throws {
            peer = try await PythonPeer.start("ssf_receiver.py", [issuer, client.id, client.secret, String(Int(test.clock.now().timeIntervalSince1970))])
            self.test = test
        }

        func control(_ path: String, _ json: [String: Any]? = nil) async throws -> TestServer.Reply {
            try await test.request(json == nil ? .GET : .POST, url + "/control/" + path, json: json)
        }

        /// Every SET received, in arrival order.
        func events() async throws -> [[String: Any]] {
            try await control("events").json["events"] as? [[String: Any]] ?? []
        }

        func stop() { peer.stop() }
    }

    /// The organisation's identity provider as a transmitter.
    final class Transmitter: @unchecked Sendable {
        let peer: PythonPeer
        var issuer: String { "http://127.0.0.1:\(peer.port)" }
        var jwksURL: URL { URL(string: issuer + "/jwks.json")! }

        init(now: Date) async throws {
            peer = try await PythonPeer.start("ssf_transmitter.py", ["--now", String(Int(now.timeIntervalSince1970))])
        }

        func control(_ test: TestServer, _ path: String, _ json: [String: Any]? = nil) async throws -> TestServer.Reply {
            try await test.request(json == nil ? .GET : .POST, issuer + "/control/" + path, json: json)
        }

        func stop() { peer.stop() }
    }
}
