import FluentKit
import FluentPostgresDriver
import Foundation
@testable import HandoverCore
import Logging
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
    /// without `HANDOVER_TEST_POSTGRES_URL`; `configure` wraps the driver's configuration (the
    /// server's: ``PreparingPostgresDatabase``).
    static func withPool(_ test: String, suite: String = "PostgresTransactionTests",
                         configure: (DatabaseConfigurationFactory) -> DatabaseConfigurationFactory = { $0 },
                         _ body: (any Database, EventLoopGroup) async throws -> Void) async throws {
        guard let url = ProcessInfo.processInfo.environment["HANDOVER_TEST_POSTGRES_URL"] else {
            print("SKIP \(suite).\(test): HANDOVER_TEST_POSTGRES_URL is not set (bash .ci/run sets it)")
            return
        }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let threads = NIOThreadPool(numberOfThreads: 1)
        threads.start()
        let databases = Databases(threadPool: threads, on: group)
        databases.use(configure(try .postgres(url: url, maxConnectionsPerEventLoop: 1, connectionPoolTimeout: .seconds(5))), as: .psql)
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
    /// where PostgresNIO 1.33 drops it and never answers. The pool's one connection is given back
    /// all the same: the next statement is served on a new one, and the transaction answers an
    /// outage (503). With FluentPostgresDriver's transaction the pool's own wait (5 s) ended the
    /// next statement with `connectionRequestTimeout`, and the transaction never answered. No
    /// clock: the test waits for the connection to close, and the pool's wait bounds the rest.
    /// With the server's prepared statements (every statement named at once) as without.
    @Test(arguments: [false, true]) func aConnectionEndedUnderATransactionIsGivenBack(prepared: Bool) async throws {
        try await Self.withPool("aConnectionEndedUnderATransactionIsGivenBack",
                                configure: { prepared ? .preparing($0, statements: PreparedStatements(sightings: 1)) : $0 }) { database, group in
            let configuration = try SQLPostgresConfiguration(url: ProcessInfo.processInfo.environment["HANDOVER_TEST_POSTGRES_URL"]!)
            let other = try await PostgresConnection.connect(on: group.any(), configuration: configuration.coreConfiguration, id: 2, logger: Self.logger)
            let (closed, signal) = AsyncStream<Void>.makeStream()
            // Unstructured: a transaction that never answers must not hold the test.
            let transaction = Task {
                try await database.inTransaction { db -> Int in
                    defer { signal.finish() }
                    let pid = try await Self.sql(db).raw("SELECT pg_backend_pid() AS pid").first(decodingColumn: "pid", as: Int.self)!
                    _ = try await other.query("SELECT pg_terminate_backend(\(Int32(pid)))", logger: Self.logger)
                    let connection = try await (db as! any PostgresDatabase).withConnection { $0.eventLoop.makeSucceededFuture($0) }.get()
                    try await connection.closeFuture.get()
                    signal.finish()
                    try await Self.sql(db).raw("SELECT 1").run()
                    return pid
                }
            }
            for await _ in closed {}
            try? await other.close()
            do {
                let one = try await Self.sql(database).raw("SELECT 1 AS one").first(decodingColumn: "one", as: Int.self)
                #expect(one == 1)
            } catch {
                Issue.record("the next statement failed: \(String(reflecting: error)); the transaction kept the pool's connection")
                return
            }
            // The connection was given back, so the transaction has answered.
            switch await transaction.result {
            case .success: Issue.record("the transaction committed on a connection PostgreSQL ended")
            case .failure(let error): #expect(DatabaseOutage.matches(error), "\(String(reflecting: error))")
            }
        }
    }
}
