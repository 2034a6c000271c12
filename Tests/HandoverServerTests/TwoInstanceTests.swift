import Foundation
import HandoverServer
import LinkCallbacks
import Testing

/// Two servers on one PostgreSQL database, as behind a load balancer.
@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct TwoInstanceTests {
    @Test func aRunCreatedOnOneInstanceTakesItsCallbackOnTheOtherAndStreamsIt() async throws {
        guard TestDatabase.available.contains(.postgres) else { return }
        let a = try await TestServer.start(.postgres)
        let b = try await TestServer.start(.postgres, sharing: a)
        try await a.registerTarget("Notes")
        try await a.registerTarget("Chart")
        let device = try await a.registerDevice()
        let run = try await LogoutRunTests.startRun(a, device: device)

        let events = try await EventStream.open(a, "/api/v1/logout-runs/\(run.id)/events", key: device.key)
        #expect(try await events.next()["status"] as? String == "running")

        // The callback lands on B (both instances share the nonce secret through the database).
        let page = try await b.request(.GET, try LogoutRunTests.callback(try #require(run.link("Notes")), "success", on: b))
        #expect(page.status == 200, "\(page.text)")

        // A's stream hears of it through LISTEN/NOTIFY.
        let update = try await events.next()
        #expect((update["items"] as? [[String: Any]])?.first?["status"] as? String == "succeeded")
        try await b.stop()
        try await a.stop()
    }

    /// A run started on A reaches the dashboard open on B: the run start's NOTIFY (sent by the
    /// statement that writes the batch's runs) is delivered at COMMIT to every instance's
    /// LISTEN, and B's overview renders the run.
    @Test func aRunStartedOnOneInstanceReachesTheDashboardOpenOnTheOther() async throws {
        guard TestDatabase.available.contains(.postgres) else { return }
        let a = try await TestServer.start(.postgres)
        let b = try await TestServer.start(.postgres, sharing: a)
        try await a.registerTarget("Mail")
        let device = try await a.registerDevice("ward-3-phone-1")
        let browser = DashboardBrowser(b)
        _ = try await browser.signIn(key: b.adminKey)
        let live = try await LiveOverviewTests.LiveReader(b, cookies: browser.cookies)
        var sections: [String] = []
        for _ in 0..<4 { sections.append(try await live.next().id) }
        #expect(sections.sorted() == ["attention", "fleet", "held-too-long", "recent-runs"])

        let run = try await LogoutRunTests.startRun(a, device: device)
        var recent = try await live.next()
        while recent.id != "recent-runs" { recent = try await live.next() }
        #expect(recent.html.contains(run.id.lowercased()), "\(recent.html)")
        try await b.stop()
        try await a.stop()
    }

    @Test func aDeadlineFiresOnceWhenBothInstancesRunTheScheduler() async throws {
        guard TestDatabase.available.contains(.postgres) else { return }
        let a = try await TestServer.start(.postgres)
        let b = try await TestServer.start(.postgres, sharing: a)
        for index in 0..<10 { try await a.registerTarget("App\(index)", deadline: 5, maxReissues: 1) }
        let device = try await a.registerDevice()
        let run = try await LogoutRunTests.startRun(a, device: device)

        a.clock.advance(by: 6)
        async let fromA = a.server.fireDeadlines()
        async let fromB = b.server.fireDeadlines()
        let (passA, passB) = try await (fromA, fromB)
        #expect(passA.reissued + passB.reissued == 10)
        #expect(passA.timedOut + passB.timedOut == 0)

        let reply = try await a.request(.GET, "/api/v1/logout-runs/\(run.id)", key: device.key)
        #expect((reply.json["items"] as? [[String: Any]])?.allSatisfy { $0["attempts"] as? Int == 2 } == true)

        a.clock.advance(by: 6)
        async let lastA = a.server.fireDeadlines()
        async let lastB = b.server.fireDeadlines()
        let (endA, endB) = try await (lastA, lastB)
        #expect(endA.timedOut + endB.timedOut == 10)
        #expect(endA.reissued + endB.reissued == 0)
        try await b.stop()
        try await a.stop()
    }
    /// A shift change's worth of deadlines due at once on both instances: each scheduler claims
    /// the runs the other does not hold (skipping, not waiting), and every deadline fires once.
    @Test func manyDeadlinesDueAtOnceFireOnceAcrossBothSchedulers() async throws {
        guard TestDatabase.available.contains(.postgres) else { return }
        let a = try await TestServer.start(.postgres)
        let b = try await TestServer.start(.postgres, sharing: a)
        for index in 0..<3 { try await a.registerTarget("Stalling-\(index)", deadline: 5, maxReissues: 1) }
        for index in 0..<60 {
            let device = try await a.registerDevice("shared-phone-\(index)")
            _ = try await LogoutRunTests.startRun(index.isMultiple(of: 2) ? a : b, device: device)
        }
        /// Both schedulers at once, then each once more: whatever one pass skipped, the next finds.
        func fireOnBoth() async throws -> (reissued: Int, timedOut: Int) {
            async let fromA = a.server.fireDeadlines()
            async let fromB = b.server.fireDeadlines()
            let passes = try await [fromA, fromB, a.server.fireDeadlines(), b.server.fireDeadlines()]
            return (passes.map(\.reissued).reduce(0, +), passes.map(\.timedOut).reduce(0, +))
        }
        a.clock.advance(by: 6)
        let first = try await fireOnBoth()
        #expect(first.reissued == 180)
        #expect(try await a.server.fireDeadlines() == (0, 0))

        a.clock.advance(by: 6)
        let second = try await fireOnBoth()
        #expect(second.timedOut == 180)
        #expect(second.reissued == 0)
        let metrics = try await a.request(.GET, "/metrics").text + (try await b.request(.GET, "/metrics").text)
        let failed = metrics.split(separator: "\n").filter { $0.hasPrefix("handover_logout_runs_finished_total{status=\"failed\"}") }
            .compactMap { Int($0.split(separator: " ").last ?? "") }.reduce(0, +)
        #expect(failed == 60)
        try await b.stop()
        try await a.stop()
    }
}
