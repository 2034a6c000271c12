import Foundation
import HandoverCore
import HandoverProtocol
import Testing
@testable import HandoverServer

/// One batch of run starts, as the group commit hands it to the service (one transaction, the
/// devices, runs and items written in bulk): each start still answers as if it came alone.
@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct RunStartBatchTests {
    @Test(arguments: TestDatabase.available)
    func aBatchStartsEachRunAsIfAlone(database: TestDatabase) async throws {
        let test = try await TestServer.start(database)
        let notes = try #require(UUID(uuidString: try await test.registerTarget("Notes")))
        _ = try await test.registerTarget("Chart")
        let first = try await test.registerDevice("batch-first")
        let second = try await test.registerDevice("batch-second")
        let (one, two) = (try #require(UUID(uuidString: first.id)), try #require(UUID(uuidString: second.id)))

        let batch: [LogoutRunService.RunStart] = [
            .init(deviceID: one, actor: "admin A"),            // every target app
            .init(deviceID: two, appIDs: [notes, notes]),      // Notes once
            .init(deviceID: UUID()),                           // no such device
            .init(deviceID: one, actor: "admin B"),            // the same device again: its step follows the first
            .init(deviceID: two, appIDs: [UUID()]),            // no such app
        ]
        let runService = test.server.runs(test.server.databases.primary)
        let results = await runService.createRuns(batch)
        let runs = results.map { try? $0.get() }
        #expect(runs[0]?.items.map(\.app) == ["Notes", "Chart"])
        #expect(runs[0]?.items.allSatisfy { $0.link != nil } == true)
        #expect(runs[1]?.items.map(\.app) == ["Notes"])
        #expect(runs[3]?.items.count == 2)
        #expect(throws: DomainError.notFound("device")) { try results[2].get() }
        #expect((results[4].failure as? DomainError)?.field == "apps[0]")

        // Every run that started is stored as it was answered, with its links.
        for run in runs.compactMap({ $0 }) {
            let stored = try await runService.view(run.id)
            #expect(stored.status == .running && stored.items.map(\.id) == run.items.map(\.id) && stored.items.map(\.link) == run.items.map(\.link))
        }
        // Each device handing over, its last run the batch's last for it, and each step in its history.
        let device = try await DeviceLifeCycleTests.device(test, first.id)
        #expect(device["status"] as? String == "handing_over")
        #expect(device["lastRunID"] as? String == runs[3]?.id.uuidString)
        let history = try await test.request(.GET, "/api/v1/devices/\(first.id)/history", key: test.adminKey).array
        #expect(history.map { $0["event"] as? String ?? "" } == ["run_started", "run_started"], "\(history)")
        #expect(Set(history.compactMap { $0["actor"] as? String }) == ["admin A", "admin B"])
        #expect(Set(history.compactMap { $0["runID"] as? String }).count == 2, "\(history)")
        let secondHistory = try await test.request(.GET, "/api/v1/devices/\(second.id)/history", key: test.adminKey).array
        #expect(secondHistory.map { $0["toStatus"] as? String ?? "" } == ["handing_over"])
        let metrics = try await test.request(.GET, "/metrics").text
        #expect(metrics.contains("handover_logout_runs_created_total 3"), "\(metrics.split(separator: "\n").filter { $0.contains("runs_created") })")
        try await test.stop()
    }
}

extension Result {
    /// The error, or nil on success.
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}
