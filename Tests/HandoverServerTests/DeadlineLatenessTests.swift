import DeviceSimulator
import Foundation
import HandoverCore
import PropertyBased
import Testing

/// The server's record of how late deadlines fire (`handover_deadline_lateness_seconds` at
/// `/metrics`), and the bench's reader of it (`DeadlineLatenessRecord`).
@Suite(.timeLimit(.minutes(5)))
struct DeadlineLatenessTests {
    /// Each fired deadline is counted from its due time to the commit of its reissue, in the
    /// server's clock: 0.3 s late lands between the 0.25 s and 0.5 s buckets, 1.7 s late beyond 1 s.
    @Test(arguments: TestDatabase.available)
    func theServerRecordsHowLateEachDeadlineFired(database: TestDatabase) async throws {
        let test = try await TestServer.start(database)
        try await test.registerTarget("Silent", deadline: 20, maxReissues: 2)
        let device = try await test.registerDevice()
        _ = try await LogoutRunTests.startRun(test, device: device)
        let before = try #require(DeadlineLatenessRecord(exposition: try await test.request(.GET, "/metrics").text))
        #expect(before.fired == 0)

        test.clock.advance(by: 20.3)
        #expect(try await test.server.fireDeadlines() == (1, 0))
        let first = try #require(DeadlineLatenessRecord(exposition: try await test.request(.GET, "/metrics").text))
        #expect(first.fired == 1)
        #expect(first.buckets.first { $0.le == 0.25 }?.count == 0)
        #expect(first.buckets.first { $0.le == 0.5 }?.count == 1)
        #expect(first.withinOneSecond == 1)

        // The reissue's deadline is 20 s after it (40.3 s); at 42 s it fires 1.7 s late.
        test.clock.advance(by: 21.7)
        #expect(try await test.server.fireDeadlines() == (1, 0))
        let second = try #require(DeadlineLatenessRecord(exposition: try await test.request(.GET, "/metrics").text))
        #expect(second.fired == 2)
        #expect(second.withinOneSecond == 1)
        #expect(second.buckets.first { $0.le == 2 }?.count == 2)
        #expect(abs(second.sumSeconds - 2.0) < 0.01)
        #expect(second.subtracting(first).fired == 1)
        #expect(second.subtracting(first).withinOneSecond == 0)
        try await test.stop()
    }

    /// Whatever the lateness recorded, the reader gets back exactly the histogram the server
    /// wrote: every bucket's count, the total and the sum; and a reading minus an earlier one is
    /// what was recorded in between.
    @Test func theReaderReadsBackWhatTheServerRecorded() async {
        let lateness = Gen<Int>.int(in: 0...40_000).array(of: 0...30)
        await propertyCheck(count: 200, input: lateness, lateness) { first, then in
            let metrics = ServerMetrics()
            metrics.runsCreated.increment()  // other metrics around it are left alone
            for value in first { metrics.deadlineLateness.record(.milliseconds(value)) }
            let earlier = DeadlineLatenessRecord(exposition: metrics.render())
            for value in then { metrics.deadlineLateness.record(.milliseconds(value)) }
            guard let earlier, let later = DeadlineLatenessRecord(exposition: metrics.render()) else {
                Issue.record("the histogram was not found in the exposition text")
                return
            }
            let all = first + then
            #expect(later.fired == all.count)
            #expect(abs(later.sumSeconds - Double(all.reduce(0, +)) / 1000) < 1e-6)
            #expect(later.buckets.map(\.le) == ServerMetrics.deadlineLatenessBuckets.map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 })
            for bucket in later.buckets {
                #expect(bucket.count == all.filter { Double($0) / 1000 <= bucket.le }.count, "le=\(bucket.le)")
            }
            let between = later.subtracting(earlier)
            #expect(between.fired == then.count)
            #expect(between.withinOneSecond == then.filter { $0 <= 1000 }.count)
            #expect(between.upperBound(of: 1) == (then.isEmpty ? nil : later.buckets.first { Double(then.max()!) / 1000 <= $0.le }?.le))
        }
    }

    /// A text without the histogram (another server, a proxy's page) reads as nothing.
    @Test func aTextWithoutTheHistogramIsNoRecord() {
        #expect(DeadlineLatenessRecord(exposition: "") == nil)
        #expect(DeadlineLatenessRecord(exposition: "# TYPE handover_callbacks_total counter\nhandover_callbacks_total 3\n") == nil)
        #expect(DeadlineLatenessRecord(exposition: "<html>Not found</html>") == nil)
    }
}
