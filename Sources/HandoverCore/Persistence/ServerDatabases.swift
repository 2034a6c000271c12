import FluentKit
import SQLKit

/// The server's database as its routes and services reach it, built once when the server starts:
/// where writes go (and reads inside a transaction), and where a read that needs no transaction
/// goes. The edge holds this value and hands it to the core's services; it never names a
/// database driver or reads a request's database itself.
///
/// On SQLite, ``reads`` are the read connections beside the one writer (in WAL mode a reader
/// never waits for the writer); on PostgreSQL both are the same pool. Each use asks for a
/// database anew, so the work spreads over the pools' event loops.
package struct ServerDatabases: Sendable {
    /// Whether the database is PostgreSQL (else SQLite).
    package let usesPostgres: Bool
    private let writer: @Sendable () -> any Database
    private let reader: @Sendable () -> any Database

    /// - Parameters:
    ///   - writer: a database for writes and transactions.
    ///   - reader: a database for reads that need no transaction; nothing may write through it.
    package init(usesPostgres: Bool, writer: @escaping @Sendable () -> any Database, reader: @escaping @Sendable () -> any Database) {
        self.usesPostgres = usesPostgres
        self.writer = writer
        self.reader = reader
    }

    /// Where writes, and reads inside a transaction, go.
    package var primary: any Database { writer() }

    /// Where a read that needs no transaction goes; it sees every committed write.
    package var reads: any Database { reader() }

    /// ``primary`` as SQL: both drivers (SQLite, PostgreSQL) speak it.
    package func sql() throws -> any SQLDatabase { try Self.sql(primary) }

    /// ``reads`` as SQL.
    package func readSQL() throws -> any SQLDatabase { try Self.sql(reads) }

    /// `database` as SQL, or a storage error with `code` (neither driver fails this): the one
    /// cast every store makes.
    package static func sql(_ database: any Database, code: String = "database_not_sql") throws -> any SQLDatabase {
        guard let sql = database as? any SQLDatabase else {
            throw DomainError(.storage, code: code, reason: "The database does not speak SQL.")
        }
        return sql
    }
}
