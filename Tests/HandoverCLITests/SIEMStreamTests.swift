import Foundation
import Testing
import TestPeers
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue 42's SIEM streaming, against the built binary and real peers: rsyslog from Debian over
/// TLS (RFC 5425; `scripts/start-rsyslog.sh`, which `.ci/run` starts) and the loopback Splunk
/// HTTP Event Collector (Tests/Peers/splunk_hec.py, after Splunk's published reference). Each
/// receives every entry of a 100-phone storm exactly once, counted by index; the collector,
/// down for the whole storm, gets them all once it is back.
@Suite(.serialized, .timeLimit(.minutes(10))) struct SIEMStreamTests {
    static func get(_ url: String) async throws -> Data {
        try await URLSession.shared.data(from: URL(string: url)!).0
    }

    static func post(_ url: String) async throws {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = "POST"
        _ = try await URLSession.shared.data(for: request)
    }

    @Test func aHundredPhoneStormReachesRsyslogAndSplunkExactlyOnce() async throws {
        guard AuditStormTests.stormsRun() else { return }
        let environment = ProcessInfo.processInfo.environment
        guard let syslog = environment["HANDOVER_TEST_SYSLOG_ADDRESS"], let ca = environment["HANDOVER_TEST_SYSLOG_CA"],
              let received = environment["HANDOVER_TEST_SYSLOG_LOG"] else {
            print("skipping the SIEM storm: no rsyslog (HANDOVER_TEST_SYSLOG_ADDRESS; .ci/run starts one with scripts/start-rsyslog.sh)")
            return
        }
        let hec = try await PythonPeer.start("splunk_hec.py", ["hec-test-token"])
        defer { hec.stop() }
        let collector = "http://127.0.0.1:\(hec.port)"
        try await Self.post(collector + "/control/down")

        let work = FileManager.default.temporaryDirectory.appendingPathComponent("handover-siem-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        // A host of its own: this server's lines in rsyslog's shared log are told apart by HOSTNAME.
        let host = "siem-\(UUID().uuidString.prefix(8).lowercased()).example.org"
        let server = try await ServerProcess.start(dataDirectory: work.appendingPathComponent("data"), environment: [
            "HANDOVER_AUDIT_CHECKPOINT_INTERVAL": "1",
            "HANDOVER_SIEM_SYSLOG": syslog, "HANDOVER_SIEM_SYSLOG_CA": ca,
            "HANDOVER_SIEM_SPLUNK_URL": collector, "HANDOVER_SIEM_SPLUNK_TOKEN": "hec-test-token",
        ], arguments: ["--public-url", "https://\(host)"])
        defer { server.terminateInBackground() }
        let key = try #require(server.firstAdminKey)
        let (storm, _) = try AuditStormTests.storm(server, key: key, devices: 100, window: 8)
        #expect(await AuditStormTests.exitStatus(of: storm) == 0, "the storm was clean")
        try await Self.post(collector + "/control/up")

        // Both catch up with the log (the collector after its back-off). The server is a child
        // process on its own clock, streaming in the background: what the receivers hold is
        // looked at every half second until both have the whole log, for at most three minutes.
        let size = try await AuditStormTests.treeSize(server, key: key)
        var syslogIndexes: [Int] = [], hecIndexes: [Int] = []
        let deadline = ContinuousClock.now + .seconds(180)
        while ContinuousClock.now < deadline {
            let lines = (try? String(contentsOfFile: received, encoding: .utf8)) ?? ""
            syslogIndexes = lines.split(separator: "\n").filter { $0.contains(" \(host) handover ") }.compactMap { line in
                line.firstMatch(of: /\[handover@32473 index="(\d+)"/).flatMap { Int($0.1) }
            }
            let events = try JSONSerialization.jsonObject(with: try await Self.get(collector + "/control/events")) as? [[String: Any]] ?? []
            hecIndexes = events.compactMap { (($0["event"] as? [String: Any])?["fields"] as? [String: Any])?["index"] as? String }.compactMap { Int($0) }
            if syslogIndexes.count >= size && hecIndexes.count >= size { break }
            try await Task.sleep(for: .milliseconds(500))
        }
        #expect(syslogIndexes.sorted() == Array(0..<size), "rsyslog: \(syslogIndexes.count) entries for a log of \(size); \(Set(syslogIndexes).count) distinct")
        #expect(hecIndexes.sorted() == Array(0..<size), "Splunk: \(hecIndexes.count) entries for a log of \(size); \(Set(hecIndexes).count) distinct")
        #expect(syslogIndexes == syslogIndexes.sorted() && hecIndexes == hecIndexes.sorted(), "in the log's order")
        let lines = try String(contentsOfFile: received, encoding: .utf8).split(separator: "\n").filter { $0.contains(" \(host) handover ") }
        #expect(lines.contains { $0.contains(" audit.checkpoint [handover@32473 size=") }, "checkpoints go out too")
        #expect(lines.contains { $0.contains(" run.receipt [handover@32473 index=") }, "receipts go out too")
        print("SIEM: \(size) audit entries of a 100-phone storm reached rsyslog over TLS and the Splunk collector once each")
    }
}
