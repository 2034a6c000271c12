import AppleIDTestServer
import AppleSignIn
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `handover serve` is killed with SIGKILL while Back-Channel Logout tokens are owed; after a
/// restart on the same data directory, every one reaches a backend that answers 200: none lost,
/// and none delivered twice for one session. The backend is `Tests/Peers/oidc_backend.py`
/// (joserfc), which validates each token as Back-Channel Logout 1.0 section 2.6 says.
@Suite(.serialized, .timeLimit(.minutes(5))) struct BackChannelCrashTests {
    static let clientID = "com.example.handover"
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Peers/oidc_backend.py")

    static func python(_ arguments: [String]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test func everyOwedLogoutTokenIsDeliveredOnceAfterASIGKILL() async throws {
        guard (try? Self.python(["-c", "import joserfc"]).0) == 0 else {
            print("SKIP the back-channel crash test: python3 with the joserfc package is not installed (bash .ci/run installs it)")
            return
        }
        let port = try #require(Int(try Self.python(["-c", "import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"]).1))
        let issuer = "http://127.0.0.1:\(port)"
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("handover-bcl-crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)

        // Apple on loopback, on the wall clock (the server checks Apple's tokens against its own).
        let apple = try await AppleIDTestServer.start(clock: ManualClock(start: Date()))
        let pem = try apple.registerClient(clientID: Self.clientID, teamID: "TEAM123456", keyID: "KEY1234567")
        let keyFile = work.appendingPathComponent("AuthKey.p8")
        try pem.write(to: keyFile, atomically: true, encoding: .utf8)
        let environment = ["HANDOVER_APPLE_CLIENT_IDS": Self.clientID, "HANDOVER_APPLE_TEAM_ID": "TEAM123456",
                           "HANDOVER_APPLE_KEY_ID": "KEY1234567", "HANDOVER_APPLE_PRIVATE_KEY_FILE": keyFile.path,
                           "HANDOVER_APPLE_BASE_URL": apple.baseURL.absoluteString]
        let arguments = ["--public-url", issuer, "--webhook-private-targets"]
        let data = work.appendingPathComponent("data")

        // The team's backend.
        let portFile = work.appendingPathComponent("backend.port")
        let backend = Process()
        backend.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        backend.arguments = ["python3", Self.script.path, "serve", issuer, Self.clientID, portFile.path]
        try backend.run()
        defer { kill(backend.processIdentifier, SIGKILL); backend.waitUntilExit() }
        var backendPort: Int?
        for _ in 0..<200 where backendPort == nil {
            backendPort = (try? String(contentsOf: portFile, encoding: .utf8)).flatMap { Int($0) }
            try await Task.sleep(for: .milliseconds(25))
        }
        let backendURL = "http://127.0.0.1:\(try #require(backendPort))"

        let first = try ServerProcess.start(dataDirectory: data, port: port, environment: environment, arguments: arguments)
        let admin = try #require(first.firstAdminKey)
        let app = try await first.request("POST", "api/v1/apps", json: [
            "name": "Handover", "appIDs": ["ABCDE12345.\(Self.clientID)"], "logoutAction": "https://handover.example.com/logout",
            "backchannelLogoutURI": backendURL + "/backchannel",
        ], key: admin)
        #expect(app.status == 201, "\(String(decoding: app.body, as: UTF8.self))")
        let appID = try #require(app.json["id"] as? String)

        // Forty shared phones, each with one signed-in session, hand over at once.
        let deviceCount = 40
        var devices: [(id: String, key: String)] = []
        for index in 0..<deviceCount {
            let device = try await first.request("POST", "api/v1/devices", json: ["name": "phone-\(index)"], key: admin)
            let id = try #require((device.json["device"] as? [String: Any])?["id"] as? String)
            devices.append((id, try #require(device.json["key"] as? String)))
            let nonce = try #require(try await first.request("POST", "auth/apple/nonce").json["nonce"] as? String)
            let sub = "nurse-\(index)"
            let token = try await apple.makeIdentityToken(sub: sub, aud: Self.clientID, nonce: IdentityTokenVerifier.sha256Hex(nonce))
            let code = apple.issueAuthorizationCode(clientID: Self.clientID, sub: sub)
            let signIn = try await first.request("POST", "auth/apple", json: [
                "identityToken": token, "authorizationCode": code, "nonce": nonce, "scope": "openid device_sso", "deviceID": id,
            ])
            #expect(signIn.status == 200, "\(String(decoding: signIn.body, as: UTF8.self))")
        }
        for device in devices {
            let run = try await first.request("POST", "api/v1/devices/\(device.id)/logout-runs", json: ["apps": [appID]], key: device.key)
            #expect(run.status == 201)
        }
        // Every run's transaction wrote its outbox row; kill the server before or while it sends them.
        first.kill()
        let beforeRestart = try await received(backendURL)

        let second = try ServerProcess.start(dataDirectory: data, port: port, environment: environment, arguments: arguments)
        // Rows leased by the killed instance wait out their one-minute lease, then are sent again.
        var report = try await received(backendURL)
        let give = Date().addingTimeInterval(90)
        while Set(report.compactMap { $0["sid"] }).count < deviceCount && Date() < give {
            try await Task.sleep(for: .milliseconds(500))
            report = try await received(backendURL)
        }
        _ = second.terminate()
        try await apple.shutdown()

        let sessions = report.compactMap { $0["sid"] }
        let invalid = report.filter { $0["valid"] == "false" }
        print("back-channel crash: \(deviceCount) sessions ended; \(beforeRestart.count) tokens reached the backend before the SIGKILL, "
              + "\(report.count) in all, \(Set(sessions).count) distinct sessions, \(sessions.count - Set(sessions).count) duplicates, \(invalid.count) invalid")
        #expect(invalid.isEmpty, "\(invalid.prefix(3))")
        #expect(Set(sessions).count == deviceCount, "every owed logout token was delivered after the restart")
        #expect(sessions.count == Set(sessions).count, "no session was announced twice")
        try? FileManager.default.removeItem(at: work)
    }

    /// What the backend received: for each POST, its validity and `sid`.
    func received(_ backend: String) async throws -> [[String: String]] {
        let (data, _) = try await URLSession.shared.data(from: URL(string: backend + "/report")!)
        let json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return (json?["received"] as? [[String: Any]] ?? []).map { entry in
            var row = ["valid": (entry["valid"] as? Bool ?? false) ? "true" : "false"]
            if let sid = (entry["claims"] as? [String: Any])?["sid"] as? String { row["sid"] = sid }
            if let error = entry["error"] as? String { row["error"] = error }
            return row
        }
    }
}
