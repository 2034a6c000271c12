import Foundation
import HandoverCore
import HandoverProtocol
import LinkCallbacks
import Testing
@testable import HandoverServer

/// One batch of callbacks, as the recorder hands it to the service (one transaction, the usual
/// callbacks written by one statement): each callback still answers as if it came alone, in
/// arrival order for each item.
@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct CallbackBatchTests {
    @Test(arguments: TestDatabase.available)
    func aBatchAnswersEachCallbackAsIfAloneInArrivalOrderForEachItem(database: TestDatabase) async throws {
        let test = try await TestServer.start(database)
        for name in ["Notes", "Chart", "Mail"] { try await test.registerTarget(name) }
        let phones = [try await test.registerDevice("batch-a"), try await test.registerDevice("batch-b"), try await test.registerDevice("batch-c")]
        var runs: [LogoutRunTests.Run] = []
        for phone in phones { runs.append(try await LogoutRunTests.startRun(test, device: phone)) }
        let (a, b, c) = (runs[0], runs[1], runs[2])

        func callback(_ run: LogoutRunTests.Run, _ app: String, _ outcome: CallbackOutcome) throws -> LogoutRunService.Callback {
            let link = try UniversalLinkCallback(parsing: try #require(run.link(app)))
            let parsed = try #require(CallbackURL((outcome == .success ? link.success : link.error).absoluteString))
            return LogoutRunService.Callback(run: parsed.run, item: parsed.item, outcome: outcome, nonce: parsed.nonce, reportedBy: .browser)
        }
        var forged = try callback(a, "Chart", .success)
        forged.nonce = "AAAA" + forged.nonce.dropFirst(4)
        var stranger = try callback(a, "Mail", .success)
        stranger.run = UUID()
        var wrongRun = try callback(a, "Mail", .success)
        wrongRun.run = try #require(UUID(uuidString: b.id))

        let batch: [LogoutRunService.Callback] = [
            try callback(a, "Notes", .error),    // 0: first for its item: recorded
            try callback(b, "Notes", .success),  // 1
            try callback(a, "Notes", .success),  // 2: the same item, later: already failed
            forged,                              // 3: a forged nonce: unknown
            try callback(a, "Chart", .success),  // 4: after a forged first: still recorded
            stranger,                            // 5: no such run
            wrongRun,                            // 6: another run's item: unknown
            try callback(b, "Chart", .success),  // 7
            try callback(a, "Mail", .success),   // 8: a's last pending item: a fails (Notes)
            try callback(c, "Mail", .success),   // 9: c keeps two pending items
            try callback(b, "Mail", .success),   // 10: b's last: b completes
            try callback(b, "Mail", .error),     // 11: too late: already succeeded
        ]
        let at = test.clock.now()
        let runService = test.server.runs(test.server.databases.primary)
        let results = await runService.record(batch.map { ($0, at) })
        let recordings = try results.map { try $0.get() }
        #expect(recordings == [
            .recorded(app: "Notes", outcome: .error),
            .recorded(app: "Notes", outcome: .success),
            .alreadyRecorded(app: "Notes", status: .failed),
            .unknown,
            .recorded(app: "Chart", outcome: .success),
            .unknown,
            .unknown,
            .recorded(app: "Chart", outcome: .success),
            .recorded(app: "Mail", outcome: .success),
            .recorded(app: "Mail", outcome: .success),
            .recorded(app: "Mail", outcome: .success),
            .alreadyRecorded(app: "Mail", status: .succeeded),
        ])

        // What the API shows: each run as its callbacks left it, and each device moved once.
        func run(_ run: LogoutRunTests.Run, _ phone: (id: String, key: String)) async throws -> (String?, [String?]) {
            let reply = try await test.request(.GET, "/api/v1/logout-runs/\(run.id)", key: phone.key)
            return (reply.json["status"] as? String, (reply.json["items"] as? [[String: Any]] ?? []).map { $0["status"] as? String })
        }
        #expect(try await run(a, phones[0]) == ("failed", ["failed", "succeeded", "succeeded"]))
        #expect(try await run(b, phones[1]) == ("completed", ["succeeded", "succeeded", "succeeded"]))
        #expect(try await run(c, phones[2]) == ("running", ["pending", "pending", "succeeded"]))
        #expect(try await DeviceLifeCycleTests.device(test, phones[0].id)["status"] as? String == "out_of_service")
        #expect(try await DeviceLifeCycleTests.device(test, phones[1].id)["status"] as? String != "out_of_service")

        // The same batch again records nothing new: every item answers as already recorded or unknown.
        let again = try await runService.record(batch.map { ($0, at) }).map { try $0.get() }
        #expect(again.allSatisfy { if case .recorded = $0 { false } else { true } })
        #expect(again[9] == .alreadyRecorded(app: "Mail", status: .succeeded))
        let metrics = try await test.request(.GET, "/metrics").text
        #expect(metrics.contains("handover_logout_runs_finished_total{status=\"completed\"} 1"))
        #expect(metrics.contains("handover_logout_runs_finished_total{status=\"failed\"} 1"))
        try await test.stop()
    }
}
