import FluentKit
import Foundation
import HandoverCore
@testable import HandoverServer
import Testing

/// Where the deadline scheduler looks for due items: on SQLite, beside the one writer.
@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct DeadlineSearchTests {
    /// A pass that finds nothing due does not wait for SQLite's writer. Its search used to run on
    /// the writer's one connection, queued behind the callbacks' commits: past the capacity,
    /// thousands of items wait for their turn with their stored deadline passed, and each pass
    /// looked through them there, ten times a second. Held by a write transaction, the writer
    /// would keep this pass waiting until the connection pool gave up on it (an error).
    @Test func aPassThatFindsNothingDueDoesNotWaitForTheWriter() async throws {
        let test = try await TestServer.start(.sqlite)
        try await test.registerTarget("First", deadline: 5, maxReissues: 1)
        try await test.registerTarget("Second", deadline: 5, maxReissues: 1)
        let device = try await test.registerDevice()
        let run = try await LogoutRunTests.startRun(test, device: device)
        // The app in the first position answers 4 s after the start; 6 s after it, the other's
        // stored deadline (5 s) has passed but its turn's (9 s) has not: the search reads it and
        // fires nothing. (Both apps were registered at the same time: their order is the run's.)
        let first = try #require(run.items.first { $0["position"] as? Int == 0 }?["link"] as? String)
        test.clock.advance(by: 4)
        let answer = try LogoutRunTests.callback(first, "success", on: test)
        #expect(try await test.request(.GET, answer).status == 200)
        test.clock.advance(by: 2)

        let scheduler = test.server.deadlineScheduler()
        try await test.server.databases.primary.transaction { _ in
            let pass = try await scheduler.fireDue()
            #expect(pass.reissued == 0 && pass.timedOut == 0)
        }
        // Once the turn's deadline passes, the same scheduler fires it.
        test.clock.advance(by: 3.5)
        #expect(try await scheduler.fireDue().reissued == 1)
        try await test.stop()
    }
}
