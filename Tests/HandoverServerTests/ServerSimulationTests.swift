import Clocks
import DeviceSimulator
import Foundation
import HandoverClient
import HandoverServer
import Testing

/// A whole shift handover against a real server: the simulated phone's launcher drives the run
/// through the API, every app behaviour answers (or not), and the server's deadlines reissue and
/// time out. The phone's clock and the server's manual clock move together.
@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct ServerSimulationTests {
    static let behaviours: [AppBehaviour] = [.conformant, .slow, .silent, .flaky, .failing, .killed, .premature]

    @Test(arguments: TestDatabase.available)
    func aServerBackedRunEndsEachBehaviourAsInLocalModeAndFailsTheRun(database: TestDatabase) async throws {
        let test = try await TestServer.start(database, developerMode: true)
        let server = test.server
        let serverClock = test.clock
        let clock = TestClock()
        let simulation = ServerLogoutSimulation(server: server.baseURL, access: .admin(key: test.adminKey),
                                                behaviours: Self.behaviours, timeoutSeconds: 20, resends: 2)
        let result = try await simulation.run(time: .simulated(clock, step: .milliseconds(100), afterStep: { step in
            serverClock.advance(by: Double(step.components.seconds) + Double(step.components.attoseconds) / 1e18)
            _ = try? await server.fireDeadlines()
        }))
        print("server-backed simulation on \(database.rawValue): run \(result.report.runID) \(result.runStatus)")
        for app in result.apps {
            print("  \(app.app.padding(toLength: 16, withPad: " ", startingAt: 0)) \(app.outcome.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)) attempts \(app.attempts)  \(app.durationMilliseconds) ms\(app.reason.map { "  (\($0))" } ?? "")")
        }
        let outcomes = Dictionary(uniqueKeysWithValues: result.apps.map { ($0.behaviour, $0) })
        #expect(result.apps.count == Self.behaviours.count)
        for behaviour in [AppBehaviour.conformant, .flaky, .killed] {
            #expect(outcomes[behaviour]?.outcome == .succeeded, "\(behaviour)")
        }
        for behaviour in [AppBehaviour.slow, .silent] {
            #expect(outcomes[behaviour]?.outcome == .timedOut, "\(behaviour)")
            #expect(outcomes[behaviour]?.attempts == 3, "\(behaviour): 1 + 2 resends")
        }
        #expect(outcomes[.failing]?.outcome == .failed)
        #expect(outcomes[.premature]?.outcome == .failed)
        #expect(outcomes[.premature]?.reason == "it answered success, but the user is still signed in")
        #expect(result.runStatus == "failed")
        #expect(result.prompts == 0)

        // The server agrees: the launcher reported the answers, and the run failed.
        let run = try await test.request(.GET, "/api/v1/logout-runs/\(result.report.runID)", key: test.adminKey)
        #expect(run.json["status"] as? String == "failed")
        let statuses = Dictionary(uniqueKeysWithValues: (run.json["items"] as? [[String: Any]] ?? []).map {
            ($0["app"] as? String ?? "", $0["status"] as? String ?? "")
        })
        #expect(statuses["sim-conformant"] == "succeeded")
        #expect(statuses["sim-premature"] == "failed")
        #expect(statuses["sim-silent"] == "timed_out")
        try await test.stop()
    }

    @Test func aSecondRunReusesTheRegisteredAppsByName() async throws {
        let test = try await TestServer.start(.sqlite, developerMode: true)
        let server = test.server
        let serverClock = test.clock
        for _ in 0..<2 {
            let clock = TestClock()
            let simulation = ServerLogoutSimulation(server: server.baseURL, access: .admin(key: test.adminKey),
                                                    behaviours: [.conformant], timeoutSeconds: 5, resends: 0)
            let result = try await simulation.run(time: .simulated(clock, step: .milliseconds(100), afterStep: { step in
                serverClock.advance(by: Double(step.components.seconds) + Double(step.components.attoseconds) / 1e18)
                _ = try? await server.fireDeadlines()
            }))
            #expect(result.runStatus == "completed")
            #expect(result.apps.map(\.outcome) == [.succeeded])
        }
        let apps = try await test.request(.GET, "/api/v1/apps", key: test.adminKey).array.compactMap { $0["name"] as? String }
        #expect(apps.sorted() == ["sim-conformant", "sim-launcher"])
        try await test.stop()
    }
}
