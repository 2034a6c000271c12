import Foundation
import NIOCore
import NIOPosix
import SQLKit
import Testing

/// The domain's tests do their SQLite work on a thread pool of their own. Before, they shared
/// NIO's blocking pool (two threads here) with every in-process server of the suite, and in a
/// full run three `DeliveryOutboxTests` cases waited on it past their two-minute limit.
@Suite(.serialized, .timeLimit(.minutes(1))) struct DomainDatabaseIsolationTests {
    @Test func aDomainDatabaseWorksWhileTheSharedBlockingPoolIsBusy() async throws {
        // Every thread of the shared pool waits until the database has answered.
        let threads = max(1, System.coreCount)
        let started = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        for _ in 0..<threads {
            NIOThreadPool.singleton.submit { _ in
                started.signal()
                release.wait()
            }
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            Thread.detachNewThread {
                for _ in 0..<threads { started.wait() }
                continuation.resume()
            }
        }
        defer { for _ in 0..<threads { release.signal() } }
        let answer = try await DomainDatabase.with(.sqlite) { database in
            try await database.sql.raw("SELECT COUNT(*) AS n FROM devices").first()?.decode(column: "n", as: Int.self)
        }
        #expect(answer == 0, "a fresh database, migrated and read while the shared pool was busy")
    }
}
