import Foundation
import TestPeers
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `handover serve` is killed with SIGKILL while it reads a backend's reply that never ends
/// (`Tests/Peers/hostile_peer.py`, 100 bytes every 50 ms). Before issue 36 the attempt was counted
/// only once it finished, so the row stayed `pending, attempts=0` and the same delivery ran again
/// after every restart (and, with a fast endless body, killed the server again). Now the attempt
/// counts before it goes out: after the restart the delivery is tried once more, cut off after
/// 8 KB, shown as failed, and never sent again.
@Suite(.serialized, .timeLimit(.minutes(5))) struct EndlessReplyCrashTests {
    static let clientID = AppleOnLoopback.clientID

    @Test func aDeliveryCutOffByASIGKILLCountsAndGivesUpAfterItsAttempts() async throws {
        guard await PythonPeer.canImport("http.server", skipping: "the endless-reply crash test") else { return }
        let port = try LoopbackPort.free()
        let issuer = "http://127.0.0.1:\(port)"
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("handover-endless-crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }

        let apple = try await AppleOnLoopback.start(in: work)
        var environment = apple.environment
        environment["HANDOVER_BACKCHANNEL_LOGOUT_ATTEMPTS"] = "2"
        let arguments = ["--public-url", issuer, "--webhook-private-targets"]
        let data = work.appendingPathComponent("data")

        let peer = try await PythonPeer.start("hostile_peer.py")
        defer { peer.stop() }
        let peerURL = "http://127.0.0.1:\(peer.port)"
        func trickles() async throws -> Int {
            let (body, _) = try await URLSession.shared.data(from: URL(string: peerURL + "/_report")!)
            let report = try JSONSerialization.jsonObject(with: body) as? [String: Any]
            return (report?["requests"] as? [String: Int])?["trickle"] ?? 0
        }

        let first = try await ServerProcess.start(dataDirectory: data, port: port, environment: environment, arguments: arguments)
        let admin = try #require(first.firstAdminKey)
        let appID = try await AppleOnLoopback.registerApp(backchannelLogoutURI: peerURL + "/trickle/backchannel", on: first, key: admin)
        let device = try await first.request("POST", "api/v1/devices", json: ["name": "ward-7-phone-1"], key: admin)
        let deviceID = try #require((device.json["device"] as? [String: Any])?["id"] as? String)
        let deviceKey = try #require(device.json["key"] as? String)
        try await apple.signIn("nurse-1", deviceID: deviceID, on: first)
        let run = try await first.request("POST", "api/v1/devices/\(deviceID)/logout-runs", json: ["apps": [appID]], key: deviceKey)
        let runID = try #require(run.json["id"] as? String)

        // The delivery goes out within a pass (a second); kill the server while it reads the reply.
        let sent = Date().addingTimeInterval(20)
        while try await trickles() == 0, Date() < sent { try await Task.sleep(for: .milliseconds(20)) }
        #expect(try await trickles() == 1, "the delivery went out")
        first.kill()

        // After its 30 s lease the delivery is due again: one more attempt, cut off after 8 KB, and
        // that was the last of two.
        let second = try await ServerProcess.start(dataDirectory: data, port: port, environment: environment, arguments: arguments)
        var backend: [String: Any] = [:]
        let give = Date().addingTimeInterval(70)
        while backend["state"] as? String != "failed", Date() < give {
            try await Task.sleep(for: .milliseconds(500))
            let view = try await second.request("GET", "api/v1/logout-runs/\(runID)", key: deviceKey)
            backend = ((view.json["items"] as? [[String: Any]])?.first?["backend"] as? [String: Any]) ?? [:]
        }
        // `failed` is final: the outbox takes pending rows only, so the count now is the count for good.
        let requests = try await trickles()
        _ = await second.terminate()
        try await apple.shutdown()
        print("endless-reply crash: \(requests) requests reached the backend; the delivery ended \(backend["state"] ?? "?") "
              + "after \(backend["attempts"] ?? "?") attempts: \(backend["lastError"] ?? "")")
        #expect(backend["state"] as? String == "failed" && backend["attempts"] as? Int == 2, "\(backend)")
        #expect((backend["lastError"] as? String)?.contains("reply body over 8192 bytes") == true, "\(backend)")
        #expect(requests == 2, "the killed attempt and one more, then no loop")
    }
}
