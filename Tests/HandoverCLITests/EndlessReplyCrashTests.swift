import AppleIDTestServer
import AppleSignIn
import Foundation
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
@Suite(.serialized, .timeLimit(.minutes(3))) struct EndlessReplyCrashTests {
    static let clientID = "com.example.handover"

    @Test func aDeliveryCutOffByASIGKILLCountsAndGivesUpAfterItsAttempts() async throws {
        guard (try? BackChannelCrashTests.python(["-c", "import http.server"]).0) == 0 else {
            print("SKIP the endless-reply crash test: python3 is not installed")
            return
        }
        let port = try #require(Int(try BackChannelCrashTests.python(["-c", "import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"]).1))
        let issuer = "http://127.0.0.1:\(port)"
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("handover-endless-crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }

        let apple = try await AppleIDTestServer.start(clock: ManualClock(start: Date()))
        let pem = try apple.registerClient(clientID: Self.clientID, teamID: "TEAM123456", keyID: "KEY1234567")
        let keyFile = work.appendingPathComponent("AuthKey.p8")
        try pem.write(to: keyFile, atomically: true, encoding: .utf8)
        let environment = ["HANDOVER_APPLE_CLIENT_IDS": Self.clientID, "HANDOVER_APPLE_TEAM_ID": "TEAM123456",
                           "HANDOVER_APPLE_KEY_ID": "KEY1234567", "HANDOVER_APPLE_PRIVATE_KEY_FILE": keyFile.path,
                           "HANDOVER_APPLE_BASE_URL": apple.baseURL.absoluteString, "HANDOVER_BACKCHANNEL_LOGOUT_ATTEMPTS": "2"]
        let arguments = ["--public-url", issuer, "--webhook-private-targets"]
        let data = work.appendingPathComponent("data")

        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Peers/hostile_peer.py")
        let portFile = work.appendingPathComponent("peer.port")
        let peer = Process()
        peer.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        peer.arguments = ["python3", script.path, portFile.path]
        try peer.run()
        defer { kill(peer.processIdentifier, SIGKILL); peer.waitUntilExit() }
        var peerPort: Int?
        for _ in 0..<200 where peerPort == nil {
            peerPort = (try? String(contentsOf: portFile, encoding: .utf8)).flatMap { Int($0) }
            try await Task.sleep(for: .milliseconds(25))
        }
        let peerURL = "http://127.0.0.1:\(try #require(peerPort))"
        func trickles() async throws -> Int {
            let (body, _) = try await URLSession.shared.data(from: URL(string: peerURL + "/_report")!)
            let report = try JSONSerialization.jsonObject(with: body) as? [String: Any]
            return (report?["requests"] as? [String: Int])?["trickle"] ?? 0
        }

        let first = try ServerProcess.start(dataDirectory: data, port: port, environment: environment, arguments: arguments)
        let admin = try #require(first.firstAdminKey)
        let app = try await first.request("POST", "api/v1/apps", json: [
            "name": "Handover", "appIDs": ["ABCDE12345.\(Self.clientID)"], "logoutAction": "https://handover.example.com/logout",
            "backchannelLogoutURI": peerURL + "/trickle/backchannel",
        ], key: admin)
        #expect(app.status == 201, "\(String(decoding: app.body, as: UTF8.self))")
        let appID = try #require(app.json["id"] as? String)
        let device = try await first.request("POST", "api/v1/devices", json: ["name": "ward-7-phone-1"], key: admin)
        let deviceID = try #require((device.json["device"] as? [String: Any])?["id"] as? String)
        let deviceKey = try #require(device.json["key"] as? String)
        let nonce = try #require(try await first.request("POST", "auth/apple/nonce").json["nonce"] as? String)
        let token = try await apple.makeIdentityToken(sub: "nurse-1", aud: Self.clientID, nonce: IdentityTokenVerifier.sha256Hex(nonce))
        let signIn = try await first.request("POST", "auth/apple", json: [
            "identityToken": token, "authorizationCode": apple.issueAuthorizationCode(clientID: Self.clientID, sub: "nurse-1"),
            "nonce": nonce, "scope": "openid device_sso", "deviceID": deviceID,
        ])
        #expect(signIn.status == 200, "\(String(decoding: signIn.body, as: UTF8.self))")
        let run = try await first.request("POST", "api/v1/devices/\(deviceID)/logout-runs", json: ["apps": [appID]], key: deviceKey)
        let runID = try #require(run.json["id"] as? String)

        // The delivery goes out within a pass (a second); kill the server while it reads the reply.
        let sent = Date().addingTimeInterval(20)
        while try await trickles() == 0, Date() < sent { try await Task.sleep(for: .milliseconds(20)) }
        #expect(try await trickles() == 1, "the delivery went out")
        first.kill()

        // After its 30 s lease the delivery is due again: one more attempt, cut off after 8 KB, and
        // that was the last of two.
        let second = try ServerProcess.start(dataDirectory: data, port: port, environment: environment, arguments: arguments)
        var backend: [String: Any] = [:]
        let give = Date().addingTimeInterval(70)
        while backend["state"] as? String != "failed", Date() < give {
            try await Task.sleep(for: .milliseconds(500))
            let view = try await second.request("GET", "api/v1/logout-runs/\(runID)", key: deviceKey)
            backend = ((view.json["items"] as? [[String: Any]])?.first?["backend"] as? [String: Any]) ?? [:]
        }
        try await Task.sleep(for: .seconds(3))
        let requests = try await trickles()
        _ = second.terminate()
        try await apple.shutdown()
        print("endless-reply crash: \(requests) requests reached the backend; the delivery ended \(backend["state"] ?? "?") "
              + "after \(backend["attempts"] ?? "?") attempts: \(backend["lastError"] ?? "")")
        #expect(backend["state"] as? String == "failed" && backend["attempts"] as? Int == 2, "\(backend)")
        #expect((backend["lastError"] as? String)?.contains("reply body over 8192 bytes") == true, "\(backend)")
        #expect(requests == 2, "the killed attempt and one more, then no loop")
    }
}
