import FluentKit
import NIOConcurrencyHelpers
import NIOCore
import PostgresNIO

/// A transaction on PostgreSQL that gives its connection back to the pool when PostgreSQL ends
/// the connection under it, as a restart or a failover does to every connection.
///
/// FluentPostgresDriver's own transaction answers a failed statement with `ROLLBACK`. When the
/// failure is the connection closing, PostgresNIO 1.33 writes that `ROLLBACK` to a closed channel,
/// drops it there and never answers it: the transaction never returns, and its connection stays
/// leased from the pool for good. An instance has eight connections; a restart in the middle of a
/// storm could strand them all, and the instance then timed out every request until it was
/// restarted.
///
/// Here `BEGIN`, `COMMIT` and `ROLLBACK` are written on the connection's event loop, and only
/// while the connection is open (a write made there, while the channel is active, reaches
/// PostgresNIO's handler, which answers it even if the connection closes later). And the caller
/// is answered ``DomainError/connectionLost`` (an outage: `503` with `Retry-After: 1`) as soon as
/// the connection closes, whatever its statements are doing, so the lease ends and the pool
/// opens a new connection. PostgreSQL rolls back a transaction whose connection ended.
enum PostgresTransaction {
    /// Runs `work` in one transaction on a connection leased from `database`'s pool.
    ///
    /// - Parameter database: a PostgreSQL database of FluentPostgresDriver's, not inside a
    ///   transaction.
    static func run<T: Sendable>(on database: any Database, _ work: @escaping @Sendable (any Database) async throws -> T) async throws -> T {
        try await database.withConnection { bound in
            // FluentPostgresDriver's database on one leased connection says it is in a
            // transaction, so that every nested `inTransaction` joins this one.
            guard let postgres = bound as? any PostgresDatabase else {
                throw DomainError(.storage, code: "database_not_postgres", reason: "A PostgreSQL transaction on another database.")
            }
            let connection = try await postgres.withConnection { $0.eventLoop.makeSucceededFuture($0) }.get()
            return try await untilClosed(connection) {
                try await control("BEGIN", on: connection)
                let result: T
                do {
                    result = try await work(bound)
                } catch {
                    // On a closed connection there is nothing to roll back: PostgreSQL has.
                    try? await control("ROLLBACK", on: connection)
                    throw error
                }
                try await control("COMMIT", on: connection)
                return result
            }
        }
    }

    /// Sends a transaction's control statement on `connection`'s event loop if it is open there,
    /// else fails with ``DomainError/connectionLost``.
    static func control(_ statement: String, on connection: PostgresConnection) async throws {
        try await connection.eventLoop.flatSubmit { () -> EventLoopFuture<Void> in
            guard !connection.isClosed else { return connection.eventLoop.makeFailedFuture(DomainError.connectionLost) }
            return connection.simpleQuery(statement).map { _ in }
        }.get()
    }

    /// `body`'s answer, or ``DomainError/connectionLost`` as soon as `connection` closes if that
    /// comes first (``ConnectionCloseWatch``). `body` runs as a task of its own (with the caller's task-local values), so
    /// that a statement PostgresNIO never answers cannot hold the caller; cancelling the caller
    /// cancels it.
    static func untilClosed<T: Sendable>(_ connection: PostgresConnection, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let waiting = NIOLockedValueBox<CheckedContinuation<T, any Error>?>(nil)
        let running = NIOLockedValueBox<Task<Void, Never>?>(nil)
        let answer: @Sendable (Result<T, any Error>) -> Void = { result in
            waiting.withLockedValue { continuation in
                continuation?.resume(with: result)
                continuation = nil
            }
        }
        defer { ConnectionCloseWatch.shared.release(connection) }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                waiting.withLockedValue { $0 = continuation }
                let task = Task {
                    do { answer(.success(try await body())) } catch { answer(.failure(error)) }
                }
                running.withLockedValue { $0 = task }
                ConnectionCloseWatch.shared.hold(connection) { answer(.failure(DomainError.connectionLost)) }
            }
        } onCancel: {
            running.withLockedValue { $0?.cancel() }
        }
    }
}
