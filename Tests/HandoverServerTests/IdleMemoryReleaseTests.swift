import Foundation
import PropertyBased
import Testing
@testable import HandoverServer

/// After a burst of requests the server gives its caches' memory back, once, when a whole pass
/// went by without a request; never while requests keep coming.
@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct IdleMemoryReleaseTests {
    @Test func aPassReleasesOnlyAfterAQuietPassAndOnlyOncePerBurst() {
        var decision = IdleMemoryRelease.Decision()
        // A server that never served anything has nothing to give back.
        #expect(decision.pass(requests: 0) == false)
        #expect(decision.pass(requests: 0) == false)
        // Requests between passes: busy, nothing released.
        #expect(decision.pass(requests: 40) == false)
        #expect(decision.pass(requests: 900) == false)
        // A pass with no new request: released, once.
        #expect(decision.pass(requests: 900) == true)
        #expect(decision.pass(requests: 900) == false)
        #expect(decision.pass(requests: 900) == false)
        // The next burst, then quiet: released again.
        #expect(decision.pass(requests: 901) == false)
        #expect(decision.pass(requests: 901) == true)
    }

    /// For any sequence of request counts, a pass releases exactly when the count did not move
    /// since the previous pass and did since the last release.
    @Test func theDecisionFollowsItsRuleForAnySequence() async {
        let steps = Gen<Int>.int(in: 0...3).array(of: 0...40)
        await propertyCheck(count: 300, input: steps) { steps in
            var decision = IdleMemoryRelease.Decision()
            var count = 0, previous = 0, lastRelease = 0
            for step in steps {
                count += step
                let expected = count == previous && count != lastRelease
                #expect(decision.pass(requests: count) == expected, "\(steps)")
                if expected { lastRelease = count }
                previous = count
            }
        }
    }

    /// On a real server: requests are counted by the middleware, and the release (each SQLite
    /// connection's `PRAGMA shrink_memory`, then `malloc_trim`) runs and the server serves on.
    @Test(arguments: TestDatabase.available)
    func theServerReleasesAfterItsRequestsStopAndServesOn(database: TestDatabase) async throws {
        let test = try await TestServer.start(database)
        for _ in 0..<5 { #expect(try await test.request(.GET, "/healthz").status == 200) }
        #expect(try await test.server.releaseMemoryIfIdle() == false)  // requests since the previous pass
        #expect(try await test.server.releaseMemoryIfIdle() == true)   // a quiet pass
        #expect(try await test.server.releaseMemoryIfIdle() == false)  // nothing new to give back
        let device = try await test.registerDevice()
        #expect(!device.id.isEmpty)
        #expect(try await test.request(.GET, "/api/v1/devices/\(device.id)", key: test.adminKey).status == 200)
        _ = try await test.server.releaseMemoryIfIdle()
        #expect(try await test.server.releaseMemoryIfIdle() == true)
        #expect(try await test.request(.GET, "/api/v1/devices/\(device.id)", key: test.adminKey).status == 200)
        try await test.stop()
    }
}
