import Foundation
import TestPeers
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `handover serve` is killed with SIGKILL while MDM commands are owed (the loopback Jamf Pro or
/// Microsoft Graph of `Tests/Peers/mdm_vendor.py` answered each first attempt 503); after a
/// restart on the same data directory every command reaches the MDM once: none lost, none sent twice.
@Suite(.timeLimit(.minutes(5))) struct MDMCrashTests {
    @Test(arguments: ["jamf", "intune"]) func everyOwedMDMCommandIsSentOnceAfterASIGKILL(vendor: String) async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else {
            print("SKIP the MDM crash test: python3 is not installed")
            return
        }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("handover-mdm-crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let count = 20
        let serials = (0..<count).map { String(format: "C02CRASH%04d", $0) }
        let peer = try await PythonPeer.start("mdm_vendor.py", [vendor, "crash-client", "crash-secret",
                                                                serials.enumerated().map { "\($0.element)=\($0.offset + 100)" }.joined(separator: ",")])
        defer { peer.stop() }
        let jamf = "http://127.0.0.1:\(peer.port)"  // the vendor's origin (Jamf Pro or Graph)
        // Half the commands' first attempts are answered 503 (still owed at the kill); the other
        // half are accepted but answered 5 s late, so the kill cuts them off in flight: after the
        // restart the server must find them at the MDM rather than send them again.
        var control = URLRequest(url: URL(string: jamf + "/_control")!)
        control.httpMethod = "POST"
        control.httpBody = try JSONSerialization.data(withJSONObject: ["fail_next": Array(repeating: 503, count: count / 2), "delay_accepted": 5])
        _ = try await URLSession.shared.data(for: control)

        var environment = ["HANDOVER_MDM": vendor, "HANDOVER_MDM_CLIENT_ID": "crash-client",
                           "HANDOVER_MDM_CLIENT_SECRET": "crash-secret", "HANDOVER_MDM_ACTION": "lock",
                           "HANDOVER_MDM_MESSAGE": "Return to the ward 7 desk"]
        if vendor == "jamf" {
            environment["HANDOVER_MDM_URL"] = jamf
        } else {
            environment["HANDOVER_MDM_TENANT"] = "contoso-tenant"
            environment["HANDOVER_MDM_LOGIN_URL"] = jamf
            environment["HANDOVER_MDM_GRAPH_URL"] = jamf
        }
        let data = work.appendingPathComponent("data")
        let first = try await ServerProcess.start(dataDirectory: data, environment: environment)
        let admin = try #require(first.firstAdminKey)
        let app = try await first.request("POST", "api/v1/apps", json: [
            "name": "Mail", "appIDs": ["ABCDE12345.com.example.mail"], "logoutAction": "https://mail.example.com/logout",
            "deadlineSeconds": 1, "maxReissues": 0,
        ], key: admin)
        let appID = try #require(app.json["id"] as? String)
        var devices: [String] = []
        for serial in serials {
            let device = try await first.request("POST", "api/v1/devices", json: ["name": "phone-\(serial)", "serialNumber": serial], key: admin)
            let id = try #require((device.json["device"] as? [String: Any])?["id"] as? String)
            let key = try #require(device.json["key"] as? String)
            devices.append(id)
            #expect(try await first.request("POST", "api/v1/devices/\(id)/logout-runs", json: ["apps": [appID]], key: key).status == 201)
        }
        // The runs time out after a second and the devices go out of service; wait for the
        // commands' first (refused) attempts, then kill the server while they are owed.
        let give = Date().addingTimeInterval(30)
        while try await Self.log(jamf).requests.filter({ $0.hasPrefix("POST ") && !$0.hasSuffix("/token") }).count < count, Date() < give {
            try await Task.sleep(for: .milliseconds(100))
        }
        first.kill()
        let beforeRestart = try await Self.log(jamf).accepted.count
        #expect(beforeRestart >= count / 2, "at least half were in flight at the kill (a slow machine may have retried some 503s already)")

        let second = try await ServerProcess.start(dataDirectory: data, environment: environment)
        var accepted = try await Self.log(jamf).accepted
        // The interrupted ones wait out their one-minute lease, then are looked up, not resent.
        let deadline = Date().addingTimeInterval(120)
        var settled = 0
        while settled < count, Date() < deadline {
            try await Task.sleep(for: .milliseconds(500))
            accepted = try await Self.log(jamf).accepted
            settled = try await Self.settledCommands(second, devices: devices, key: admin)
        }
        try await Task.sleep(for: .seconds(6))  // time for a duplicate to show, were there one
        accepted = try await Self.log(jamf).accepted
        _ = await second.terminate()
        print("MDM crash (\(vendor)): \(count) devices out of service; \(beforeRestart) commands in flight (accepted, unanswered) at the SIGKILL, "
              + "\(settled) recorded as sent after the restart, \(accepted.count) accepted in all, \(Set(accepted).count) distinct devices, "
              + "\(accepted.count - Set(accepted).count) duplicates")
        #expect(settled == count, "every command is recorded as sent")
        #expect(Set(accepted).count == count, "every owed command reached Jamf Pro after the restart")
        #expect(accepted.count == count, "none was sent twice")
    }

    /// How many of `devices` have their command recorded as sent (their histories).
    static func settledCommands(_ server: ServerProcess, devices: [String], key: String) async throws -> Int {
        var settled = 0
        for device in devices {
            let history = try await server.request("GET", "api/v1/devices/\(device)/history", key: key)
            let events = (try? JSONSerialization.jsonObject(with: history.body) as? [[String: Any]])?.compactMap { $0["event"] as? String } ?? []
            if events.contains("mdm_command_sent") { settled += 1 }
        }
        return settled
    }

    /// The vendor's log: every request as `METHOD path`, and each accepted command's management id.
    static func log(_ jamf: String) async throws -> (requests: [String], accepted: [String]) {
        let (data, _) = try await URLSession.shared.data(from: URL(string: jamf + "/_log")!)
        let json = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        let requests = (json["requests"] as? [[String: Any]] ?? []).map { "\($0["method"] as? String ?? "") \($0["path"] as? String ?? "")" }
        let accepted = (json["accepted"] as? [[String: Any]] ?? []).compactMap { entry -> String? in
            // Jamf Pro: the management id in the body; Graph: the managed device id in the path.
            if let body = (entry["body"] as? String)?.data(using: .utf8),
               let command = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
               let id = (command["clientData"] as? [[String: Any]])?.first?["managementId"] as? String {
                return id
            }
            return entry["path"] as? String
        }
        return (requests, accepted)
    }
}
