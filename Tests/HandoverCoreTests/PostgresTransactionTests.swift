import FluentKit
import FluentPostgresDriver
import Foundation
@testable import HandoverCore
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PostgresNIO
import SQLKit
import Testing

/// ``PostgresTransaction``, through `inTransaction` as every store reaches it, on a pool of one
/// connection: one transaction for all its statements, a rollback on an error, and a connection
/// that PostgreSQL ends under a transaction given back to the pool instead of held for good
/// (the failover test's wedge: after a restart an instance timed out every request).
@Suite(.timeLimit(.minutes(2))) struct PostgresTransactionTests {
    static let logger = Logger(label: "postgres-transaction-tests")

    /// A pool of one connection on one event loop of its own, or nil (and a printed reason)
    /// without `HANDOVER_TEST_POSTGRES_URL`.
    static func withPool(_ test: String, _ body: (any Database, EventLoopGroup) async throws -> Void) async throws {
        guard let url = ProcessInfo.processInfo.environment["HANDOVER_TEST_POSTGRES_URL"] else {
            print("SKIP PostgresTransactionTests.\(test): HANDOVER_TEST_POSTGRES_URL is not set (bash .ci/run sets it)")
            return
        }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let threads = NIOThreadPool(numberOfThreads: 1)
        threads.start()
        let databases = Databases(threadPool: threads, on: group)
        databases.use(try .postgres(url: url, maxConnectionsPerEventLoop: 1, connectionPoolTimeout: .seconds(5)), as: .psql)
        let database = databases.database(logger: logger, on: group.any())!
        do {
            try await body(database, group)
        } catch {
            await databases.shutdownAsync()
            throw error
        }
        await databases.shutdownAsync()
        try? await threads.shutdownGracefully()
    }

    /// What `body` answered, or nil if it had not answered within `seconds`: a guard against
    /// the hang this suite is about, which no cancellation reaches (the task is left behind).
    static func answer<T: Sendable>(within seconds: Int, _ body: @escaping @Sendable () async throws -> T) async -> Result<T, any Error>? {
        let waiting = NIOLockedValueBox<CheckedContinuation<Result<T, any Error>?, Never>?>(nil)
        let give: @Sendable (Result<T, any Error>?) -> Void = { result in
            waiting.withLockedValue { continuation in
                continuation?.resume(returning: result)
                continuation = nil
            }
        }
        return await withCheckedContinuation { continuation in
            waiting.withLockedValue { $0 = continuation }
            Task {
                do { give(.success(try await body())) } catch { give(.failure(error)) }
            }
            Task {
                try? await Task.sleep(for: .seconds(seconds))
                give(nil)
            }
        }
    }

    static func sql(_ database: any Database) -> any SQLDatabase { database as! any SQLDatabase }

    /// Every statement of `work` is in one transaction (one transaction id), and a nested
    /// `inTransaction` joins it.
    @Test func theStatementsOfATransactionShareOne() async throws {
        try await Self.withPool("theStatementsOfATransactionShareOne") { database, _ in
            let ids = try await database.inTransaction { db in
                let first = try await Self.sql(db).raw("SELECT pg_current_xact_id()::text AS id").first(decodingColumn: "id", as: String.self)
                let nested = try await db.inTransaction { inner in
                    try await Self.sql(inner).raw("SELECT pg_current_xact_id()::text AS id").first(decodingColumn: "id", as: String.self)
                }
                return [first, nested]
            }
            #expect(ids[0] != nil && ids[0] == ids[1])
        }
    }

    /// An error in `work` rolls back what it wrote (PostgreSQL's DDL is transactional), and the
    /// connection serves the next statement outside any transaction.
    @Test func anErrorRollsBack() async throws {
        try await Self.withPool("anErrorRollsBack") { database, _ in
            let table = "handover_rollback_\(UUID().uuidString.prefix(8).lowercased())"
            struct Refused: Error {}
            await #expect(throws: Refused.self) {
                try await database.inTransaction { db -> Int in
                    try await Self.sql(db).raw("CREATE TABLE \(unsafeRaw: table) (n int)").run()
                    throw Refused()
                }
            }
            let found = try await Self.sql(database).raw("SELECT to_regclass(\(bind: table))::text AS t").first(decodingColumn: "t", as: String?.self)
            #expect(found == .some(nil))
        }
    }

    /// PostgreSQL ends the transaction's connection (`pg_terminate_backend`, as a restart does to
    /// every connection), and the transaction's next statement goes to the closed connection,
    /// where PostgresNIO 1.33 drops it and never answers. The transaction still answers, an
    /// outage (503), and the pool's one connection is given back: the next statement is served on
    /// a new one. With FluentPostgresDriver's transaction, neither answered.
    @Test func aConnectionEndedUnderATransactionIsGivenBack() async throws {
        try await Self.withPool("aConnectionEndedUnderATransactionIsGivenBack") { database, group in
            let configuration = try SQLPostgresConfiguration(url: ProcessInfo.processInfo.environment["HANDOVER_TEST_POSTGRES_URL"]!)
            let other = try await PostgresConnection.connect(on: group.any(), configuration: configuration.coreConfiguration, id: 2, logger: Self.logger)
            let outcome = await Self.answer(within: 20) {
                try await database.inTransaction { db -> Int in
                    let pid = try await Self.sql(db).raw("SELECT pg_backend_pid() AS pid").first(decodingColumn: "pid", as: Int.self)!
                    _ = try await other.query("SELECT pg_terminate_backend(\(Int32(pid)))", logger: Self.logger)
                    let connection = try await (db as! any PostgresDatabase).withConnection { $0.eventLoop.makeSucceededFuture($0) }.get()
                    try await connection.closeFuture.get()
                    try await Self.sql(db).raw("SELECT 1").run()
                    return pid
                }
            }
            try? await other.close()
            switch outcome {
            case nil: Issue.record("the transaction never answered")
            case .success: Issue.record("the transaction committed on a connection PostgreSQL ended")
            case .failure(let error): #expect(DatabaseOutage.matches(error), "\(String(reflecting: error))")
            }
            let next = await Self.answer(within: 20) {
                try await Self.sql(database).raw("SELECT 1 AS one").first(decodingColumn: "one", as: Int.self)
            }
            switch next {
            case nil: Issue.record("the next statement never answered")
            case .success(let one): #expect(one == 1)
            case .failure(let error): Issue.record("the next statement failed: \(String(reflecting: error))")
            }
        }
    }
}
