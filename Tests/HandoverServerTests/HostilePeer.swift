import Foundation
import TestPeers
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `Tests/Peers/hostile_peer.py`: a loopback HTTP peer that answers as a hostile or broken
/// backend, webhook receiver or MDM would (an endless body, a 1.5 GB one, a trickle, a 1 MB
/// error, no answer at all), and counts what it was sent.
final class HostilePeer: @unchecked Sendable {
    /// How the peer answers a path that starts with the case's raw value.
    enum Answer: String, Sendable, CaseIterable {
        case ok, endless, huge, trickle, longError = "long-error", hang
    }

    let process: SpawnedProgram
    let port: Int
    var origin: String { "http://127.0.0.1:\(port)" }

    /// A URL on the peer that answers as `answer`.
    func url(_ answer: Answer, _ rest: String = "") -> String { origin + "/" + answer.rawValue + rest }

    init() async throws {
        let peer = try await PythonPeer.start("hostile_peer.py")
        self.process = peer.process
        self.port = peer.port
    }

    struct Report: Decodable {
        var requests: [String: Int]
        var paths: [String]
    }

    /// What it was sent so far.
    func report() async throws -> Report {
        let (data, _) = try await URLSession.shared.data(from: URL(string: origin + "/_report")!)
        return try JSONDecoder().decode(Report.self, from: data)
    }

    /// How many requests reached paths that answer as `answer`.
    func count(_ answer: Answer) async throws -> Int { try await report().requests[answer.rawValue] ?? 0 }

    func stop() { PythonPeer(process: process, port: port).stop() }
}
