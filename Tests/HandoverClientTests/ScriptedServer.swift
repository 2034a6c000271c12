import Foundation
import TestPeers
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A loopback HTTP server that answers from a script (`Tests/Peers/scripted_http.py`) and
/// records every request it received, for the SDK's tests of a busy server.
struct ScriptedServer {
    /// One answer of the script.
    enum Answer: Encodable {
        /// An answer with this status, these header fields and this body.
        case status(Int, headers: [String: String] = [:], body: String = "")
        /// Reads the request, then closes the connection without answering.
        case drop

        private enum Keys: String, CodingKey { case status, headers, body, drop }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            switch self {
            case .status(let status, let headers, let body):
                try container.encode(status, forKey: .status)
                try container.encode(headers, forKey: .headers)
                try container.encode(body, forKey: .body)
            case .drop:
                try container.encode(true, forKey: .drop)
            }
        }

        /// A JSON answer.
        static func json(_ status: Int, _ body: String, headers: [String: String] = [:]) -> Answer {
            .status(status, headers: headers.merging(["Content-Type": "application/json"]) { mine, _ in mine }, body: body)
        }
    }

    /// A request as the server received it.
    struct Received: Decodable, Equatable {
        var method: String
        var path: String
        var headers: [String: String]
        var body: String
    }

    let peer: PythonPeer

    var baseURL: URL { URL(string: "http://127.0.0.1:\(peer.port)") ?? URL(fileURLWithPath: "/") }

    /// Whether python3 can serve; prints why a test skips when it cannot.
    static func isAvailable() async -> Bool {
        await PythonPeer.canImport("http.server", skipping: "the scripted HTTP server")
    }

    /// Starts a server that gives `answers` in order, the last one to every later request.
    static func start(_ answers: [Answer]) async throws -> ScriptedServer {
        let script = String(decoding: try JSONEncoder().encode(answers), as: UTF8.self)
        return ScriptedServer(peer: try await PythonPeer.start("scripted_http.py", [script]))
    }

    /// Every request received so far, in order.
    func received() async throws -> [Received] {
        let (data, _) = try await URLSession(configuration: .ephemeral).data(from: baseURL.appendingPathComponent("_peer/requests"))
        return try JSONDecoder().decode([Received].self, from: data)
    }

    func stop() { peer.stop() }
}

extension URLSession {
    /// A session of its own for one test: no connection kept from another test's server.
    static func fresh() -> URLSession { URLSession(configuration: .ephemeral) }
}
