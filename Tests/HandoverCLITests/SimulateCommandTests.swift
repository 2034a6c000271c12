import Foundation
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
