import Foundation
import TestPeers
import Testing

@Suite(.timeLimit(.minutes(5))) struct SimulateCommandTests {
    struct Output: Decodable {
        struct App: Decodable {
            var app: String
            var behaviour: String
            var outcome: String
            var attempts: Int
            var duration_ms: Int
        }
        var apps: [App]
        var wall_ms: Int
        var simulated_ms: Int
        var prompts: Int
    }

    /// The wall time is printed, not asserted: timing belongs in benchmarks, and a loaded CI
    /// machine must not fail this test. That simulated time is used is asserted instead: the
    /// timed-out apps alone account for a minute of it.
    @Test func simulateLogoutReportsEachBehaviourInJSONInSimulatedTime() async throws {
        let started = Date()
        let result = try await HandoverBinary.run(["simulate", "logout", "--apps", "conformant,slow,silent,flaky,failing,killed,premature", "--json"])
        let wall = Date().timeIntervalSince(started)
        #expect(result.status == 0, "\(result.stderr)")
        let output = try JSONDecoder().decode(Output.self, from: Data(result.stdout.utf8))
        let outcomes = Dictionary(uniqueKeysWithValues: output.apps.map { ($0.app, ($0.outcome, $0.attempts)) })
        #expect(outcomes["conformant"]! == ("succeeded", 1))
        #expect(outcomes["flaky"]! == ("succeeded", 1))
        #expect(outcomes["killed"]! == ("succeeded", 1))
        #expect(outcomes["slow"]! == ("timed_out", 3))
        #expect(outcomes["silent"]! == ("timed_out", 3))
        #expect(outcomes["failing"]! == ("failed", 1))
        #expect(outcomes["premature"]! == ("failed", 1))
        #expect(output.apps.map(\.behaviour) == ["conformant", "slow", "silent", "flaky", "failing", "killed", "premature"])
        #expect(output.simulated_ms >= 120_000)
        // Run in real time, the simulation could not report more time than it took; no ratio is
        // asked, which a loaded machine could break (10× failed once beside the CLI tests).
        #expect(output.simulated_ms > output.wall_ms, "\(output.simulated_ms) ms simulated in \(output.wall_ms) ms")
        print("simulate logout: \(output.simulated_ms) ms simulated in \(Int(wall * 1000)) ms of wall time")
    }

    /// Before (issue 66, item 4): with a device key the run covers every target app of the
    /// registry, but the report listed only the apps the simulation played ("succeeded") and the
    /// command exited 0, though the run failed on an app it did not play.
    @Test func anAppTheSimulationDoesNotPlayIsReportedAndAFailedRunExitsNonZero() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("handover-simulate-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let server = try await ServerProcess.start(dataDirectory: data, arguments: ["--developer-mode"])
        let key = try #require(server.firstAdminKey)
        let base = server.baseURL.absoluteString
        let port = String(try LoopbackPort.free())
        // The sim-* apps, registered by an admin run with that port for their logout actions.
        let setUp = try await HandoverBinary.run(["simulate", "logout", "--server", base, "--admin-key", key, "--apps", "conformant",
                                                  "--app-port", port, "--timeout", "5", "--resends", "0"], timeout: 120)
        #expect(setUp.status == 0, "\(setUp.stdout)\(setUp.stderr)")
        // An app of the registry the simulated phone does not have, and a device of the fleet.
        let chart = try await server.request("POST", "api/v1/apps", json: [
            "name": "Chart", "role": "target", "appIDs": ["A1B2C3D4E5.org.example.chart"],
            "logoutAction": "https://chart.example.org/logout", "deadlineSeconds": 1, "maxReissues": 0], key: key)
        #expect(chart.status == 201, "\(String(decoding: chart.body, as: UTF8.self))")
        // One device for each run: a failed run takes its device out of service.
        func arguments(_ name: String) async throws -> [String] {
            let device = try await server.request("POST", "api/v1/devices", json: ["name": name], key: key)
            let id = try #require((device.json["device"] as? [String: Any])?["id"] as? String)
            let deviceKey = try #require(device.json["key"] as? String)
            return ["simulate", "logout", "--server", base, "--device-id", id, "--device-key", deviceKey, "--apps", "conformant",
                    "--app-port", port, "--timeout", "5", "--resends", "0"]
        }

        let text = try await HandoverBinary.run(try await arguments("ward-7-phone-1"), timeout: 120)
        #expect(text.status != 0, "the run failed: \(text.stdout)\(text.stderr)")
        let chartLine = text.stdout.split(separator: "\n").first { $0.contains("Chart") }.map(String.init) ?? ""
        #expect(chartLine.contains("timed_out") && chartLine.contains("not played"), "\(text.stdout)")
        #expect(text.stdout.contains(": failed"), "\(text.stdout)")
        let json = try await HandoverBinary.run(try await arguments("ward-7-phone-2") + ["--json"], timeout: 120)
        #expect(json.status != 0)
        let output = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json.stdout)")
        let apps = output["apps"] as? [[String: Any]] ?? []
        #expect(apps.compactMap { $0["app"] as? String }.sorted() == ["Chart", "sim-conformant"], "every app of the run: \(apps)")
        let unplayed = try #require(apps.first { $0["app"] as? String == "Chart" })
        #expect(unplayed["played"] as? Bool == false && unplayed["outcome"] as? String == "timed_out" && unplayed["behaviour"] == nil, "\(unplayed)")
        #expect(output["run_status"] as? String == "failed")
        _ = await server.terminate()
    }

    @Test func unknownBehaviourSaysWhatToTypeInstead() async throws {
        let result = try await HandoverBinary.run(["simulate", "logout", "--apps", "conformant,sleepy"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("'sleepy' is not a behaviour"))
        #expect(result.stderr.contains("conformant, slow, silent"))
    }

    @Test func xCallbackAppsArePlayedWithIOSsPromptCounted() async throws {
        let result = try await HandoverBinary.run(["simulate", "logout", "--apps", "conformant", "--x-callback-apps", "conformant,failing", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let output = try JSONDecoder().decode(Output.self, from: Data(result.stdout.utf8))
        #expect(output.apps.map(\.app) == ["conformant", "x-conformant", "x-failing"])
        #expect(output.apps.map(\.outcome) == ["succeeded", "succeeded", "failed"])
        #expect(output.prompts == 4)  // two links opened, two replies to the launcher's scheme
        let refused = try await HandoverBinary.run(["simulate", "logout", "--apps", "conformant", "--x-callback-apps", "tapping"])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("--x-callback-apps: 'tapping' is not a behaviour"))
    }

    @Test func resendsChangeTheAttemptsOfATimedOutApp() async throws {
        let result = try await HandoverBinary.run(["simulate", "logout", "--apps", "silent", "--resends", "1", "--timeout", "5", "--json"])
        let output = try JSONDecoder().decode(Output.self, from: Data(result.stdout.utf8))
        #expect(output.apps.first?.attempts == 2)
        #expect(output.apps.first?.outcome == "timed_out")
    }
}
