import AsyncKit
import Foundation
@testable import HandoverCore
import Logging
import NIOCore
@testable import PostgresNIO
import Testing

/// ``DatabaseOutage``: the errors the server answers 503 with `Retry-After` (the database out of
/// reach for now), apart from those it answers 500 (a statement or a request that is wrong). The
/// errors are PostgresNIO's own, from a real connection.
@Suite(.timeLimit(.minutes(1))) struct DatabaseOutageTests {
    static let logger = Logger(label: "database-outage-tests")

    /// The server's own "not in time" is an outage; its other refusals are not.
    @Test func aWritePastItsDeadlineIsAnOutageAndARefusalIsNot() {
        #expect(DatabaseOutage.matches(DomainError.databaseUnavailable))
        #expect(!DatabaseOutage.matches(DomainError.notFound("device")))
        #expect(!DatabaseOutage.matches(CancellationError()))
    }

    /// Nothing listening where the database should be: a connection error, an outage.
    @Test func aConnectionThatCannotBeMadeIsAnOutage() async {
        let configuration = PostgresConnection.Configuration(host: "127.0.0.1", port: 1, username: "handover", password: nil,
                                                             database: "postgres", tls: .disable)
        do {
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: Self.logger)
            try? await connection.close()
            Issue.record("connected to port 1")
        } catch {
            #expect(DatabaseOutage.matches(error), "\(String(reflecting: error))")
        }
    }

    /// A statement sent on a connection that is closing, or was closed by the pool, is an outage
    /// (`clientClosedConnection`: a pool's connection that PostgreSQL ended by restarting, closed
    /// before the statement reached the server): the failover test met it as a 500 now and then.
    /// Built with PostgresNIO's own constructors (a debug build makes them visible to tests): on a
    /// real connection closed first, PostgresNIO 1.33's statement never returns (its write to the
    /// closed channel is dropped), which is the hang ``GroupCommit``'s deadline guards against.
    @Test func aStatementOnAClosingConnectionIsAnOutage() {
        #expect(DatabaseOutage.matches(PSQLError.clientClosedConnection(underlying: nil)))
        #expect(DatabaseOutage.matches(PSQLError.serverClosedConnection(underlying: nil)))
        #expect(!DatabaseOutage.matches(PSQLError.queryCancelled))
    }

    /// A pool whose every connection stayed busy past its request time-out (AsyncKit's
    /// `ConnectionPoolTimeoutError`, 10 s by default) is out of reach for now, not a fault: a 503 the
    /// caller waits out. A registration during the full suite's busiest minute met it on SQLite as a
    /// 500 (`RevokedPhoneStormTests`). A pool that has shut down is not an outage to wait out.
    @Test func aPoolThatCouldNotLendAConnectionInTimeIsAnOutage() {
        #expect(DatabaseOutage.matches(ConnectionPoolTimeoutError.connectionRequestTimeout))
        #expect(!DatabaseOutage.matches(ConnectionPoolError.shutdown))
    }

    /// The same errors as PostgresNIO's older, future-based statements report them (SQLKit's
    /// path on PostgreSQL): `PostgresError.server` with the server's SQLSTATE, and
    /// `connectionClosed`. The failover test met `57P01` this way as a 500 (a callback's statement
    /// in flight when PostgreSQL's restart ended its connection).
    @Test func theOlderErrorsOfAnOutageAreOutagesToo() {
        let shutdown = PostgresMessage.Error(fields: [.severity: "FATAL", .sqlState: "57P01", .message: "terminating connection due to administrator command"])
        let syntax = PostgresMessage.Error(fields: [.severity: "ERROR", .sqlState: "42601", .message: "syntax error"])
        #expect(DatabaseOutage.matches(PostgresError.server(shutdown)))
        #expect(DatabaseOutage.matches(PostgresError.connectionClosed))
        #expect(DatabaseOutage.matches(PSQLError.uncleanShutdown.toPostgresError()))
        #expect(DatabaseOutage.matches(ChannelError.ioOnClosedChannel))
        #expect(!DatabaseOutage.matches(PostgresError.server(syntax)))
        #expect(!DatabaseOutage.matches(PostgresError.protocol("Unexpected message: none")))
    }

    /// The test database's connection settings, when `HANDOVER_TEST_POSTGRES_URL` is set.
    static func postgres() -> PostgresConnection.Configuration? {
        guard let text = ProcessInfo.processInfo.environment["HANDOVER_TEST_POSTGRES_URL"], let url = URLComponents(string: text),
              let host = url.host else { return nil }
        return PostgresConnection.Configuration(host: host, port: url.port ?? 5432, username: url.user ?? "postgres",
                                                password: url.password, database: String(url.path.dropFirst()), tls: .disable)
    }

    /// On PostgreSQL: a statement that is wrong (42601, a syntax error) is not an outage. (A
    /// connection the server ends, 57P01, is the failover test's: `FailoverTests` restarts a
    /// cluster of its own under a storm, and fails on any 500. Ending this test's own connection
    /// with `pg_terminate_backend` left its next query waiting for good now and then, beside the
    /// full suite: PostgresNIO's hang that ``GroupCommit``'s deadline guards against.)
    @Test func aWrongStatementIsNotAnOutage() async throws {
        guard let configuration = Self.postgres() else {
            print("DatabaseOutageTests: skipping the PostgreSQL case: HANDOVER_TEST_POSTGRES_URL is not set")
            return
        }
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 2, logger: Self.logger)
        do {
            _ = try await connection.query("SELEC 1", logger: Self.logger)
            Issue.record("a syntax error was accepted")
        } catch {
            #expect(!DatabaseOutage.matches(error), "\(String(reflecting: error))")
        }
        try? await connection.close()
    }
}
