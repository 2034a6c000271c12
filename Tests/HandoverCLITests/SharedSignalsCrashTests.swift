import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestPeers
import Testing

/// `handover serve` is killed with SIGKILL while security events are owed to two receivers (the
/// joserfc peer `Tests/Peers/ssf_receiver.py`), one by push (RFC 8935) and one by poll (RFC 8936).
/// After a restart on the same data directory, the push receiver gets every event (a push cut off
/// by the kill is sent again when its lease runs out), and the poll receiver gets every event too:
/// those it had polled before the kill and not acknowledged come back.
@Suite(.serialized, .timeLimit(.minutes(5))) struct SharedSignalsCrashTests {
    static let sessionRevoked = "https://schemas.openid.net/secevent/caep/event-type/session-revoked"

    @Test func noSecurityEventIsLostToASIGKILL() async throws {
        guard await PythonPeer.canImport("joserfc", skipping: "the Shared Signals crash test") else { return }
        let port = try LoopbackPort.free()
        let issuer = "http://127.0.0.1:\(port)"
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("handover-ssf-crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let apple = try await AppleOnLoopback.start(in: work)
        let arguments = ["--public-url", issuer, "--webhook-private-targets"]
        let data = work.appendingPathComponent("data")

        let first = try await ServerProcess.start(dataDirectory: data, port: port, environment: apple.environment, arguments: arguments)
        let admin = try #require(first.firstAdminKey)
        let appID = try await AppleOnLoopback.registerApp(backchannelLogoutURI: issuer + "/no-backend", on: first, key: admin)
        var receivers: [PythonPeer] = []
        defer { receivers.forEach { $0.stop() } }
        for (name, method) in [("SIEM", "push"), ("proxy", "poll")] {
            let client = try await first.request("POST", "oauth/register", json: ["client_name": name], key: admin)
            let peer = try await PythonPeer.start("ssf_receiver.py", [issuer, client.json["client_id"] as? String ?? "", client.json["client_secret"] as? String ?? ""])
            receivers.append(peer)
            let stream = try await control(peer, "stream", ["method": method, "events_requested": [Self.sessionRevoked]])
            #expect(stream.status == 200, "\(stream.text)")
        }
        let (push, poll) = (receivers[0], receivers[1])

        // Twenty phones, each with a signed-in session, hand over at once: twenty session-revoked
        // events owed to each receiver.
        let count = 20
        var devices: [(id: String, key: String)] = []
        for index in 0..<count {
            let device = try await first.request("POST", "api/v1/devices", json: ["name": "phone-\(index)"], key: admin)
            let id = try #require((device.json["device"] as? [String: Any])?["id"] as? String)
            devices.append((id, try #require(device.json["key"] as? String)))
            try await apple.signIn("nurse-\(index)", deviceID: id, on: first)
        }
        for device in devices {
            let run = try await first.request("POST", "api/v1/devices/\(device.id)/logout-runs", json: ["apps": [appID]], key: device.key)
            #expect(run.status == 201)
        }
        // The poll receiver takes what is there without acknowledging it; then the server dies.
        let polledBefore = try await control(poll, "poll", ["returnImmediately": true, "ack": false]).json["jtis"] as? [String] ?? []
        first.kill()
        let pushedBefore = try await sessions(push).count

        let second = try await ServerProcess.start(dataDirectory: data, port: port, environment: apple.environment, arguments: arguments)
        // Awaited, not slept on: the push receiver answers once every event has arrived (a push
        // cut off by the kill waits out its 30 s lease); each poll waits at the server until an
        // event is owed (RFC 8936 long polling), and acknowledges what the last one brought.
        let pushed = try await sessions(from: try await control(push, "wait", ["type": Self.sessionRevoked, "count": count, "timeout": 90]))
        var polled = try await sessions(poll), polls = 0
        repeat {
            let answer = try await control(poll, "poll", ["returnImmediately": polled.count >= count, "ack": true])
            #expect((answer.json["errors"] as? [String: Any])?.isEmpty != false, "\(answer.text)")
            polled = try await sessions(poll)
            polls += 1
        } while polled.count < count && polls <= count
        let againAfterRestart = try await control(poll, "poll", ["returnImmediately": true, "ack": true]).json["jtis"] as? [String] ?? []
        _ = await second.terminate()
        try await apple.shutdown()
        print("Shared Signals crash: \(count) sessions ended; \(pushedBefore) pushed and \(polledBefore.count) polled (unacknowledged) before the SIGKILL; "
              + "after the restart \(pushed.count) pushed and \(polled.count) polled")
        #expect(pushed.count == count, "every owed push was delivered after the restart")
        #expect(polled.count == count, "every event reached the poll receiver after the restart")
        #expect(againAfterRestart.isEmpty, "once acknowledged, nothing comes back")
        try? FileManager.default.removeItem(at: work)
    }

    struct Reply {
        var status: Int
        var text: String
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:] }
    }

    func control(_ peer: PythonPeer, _ path: String, _ json: [String: Any]? = nil) async throws -> Reply {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(peer.port)/control/\(path)")!, timeoutInterval: 120)
        if let json {
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: json)
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        return Reply(status: (response as? HTTPURLResponse)?.statusCode ?? 0, text: String(decoding: data, as: UTF8.self))
    }

    /// The distinct sessions the receiver was told of.
    func sessions(_ peer: PythonPeer) async throws -> Set<String> {
        try await sessions(from: control(peer, "events"))
    }

    func sessions(from report: Reply) async throws -> Set<String> {
        let events = report.json["events"] as? [[String: Any]] ?? []
        return Set(events.filter { $0["type"] as? String == Self.sessionRevoked }
            .compactMap { (($0["sub_id"] as? [String: Any])?["session"] as? [String: Any])?["id"] as? String })
    }
}
