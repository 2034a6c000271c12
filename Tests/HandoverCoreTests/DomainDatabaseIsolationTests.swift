import NIOPosix
import Testing

/// The domain's tests do their SQLite work on a thread pool of their own. Before, they shared
/// NIO's blocking pool (two threads here) with every in-process server of the suite (Vapor's
/// default), and in a full run three `DeliveryOutboxTests` cases waited on it past their
/// two-minute limit.
///
/// (Shown once by holding the shared pool's threads while a domain database was migrated: with
/// the shared pool it failed with `connectionRequestTimeout`, with its own it passed. That
/// experiment stalls every server test running beside it, so what stays here is the structure.)
@Suite struct DomainDatabaseIsolationTests {
    @Test func aDomainDatabaseHasAThreadPoolOfItsOwn() async throws {
        try await DomainDatabase.with(.sqlite) { database in
            #expect(database.databases.threadPool !== NIOThreadPool.singleton)
        }
    }
}
