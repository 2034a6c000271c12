import FluentKit
import FluentPostgresDriver
import FluentSQLiteDriver
import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import SQLKit

/// The server's database, opened: FluentKit's connection pools over SQLite in the data directory
/// or over PostgreSQL, the schema brought up to date, and the pools closed at the end. The server
/// (and each `admin` command) opens one, hands its ``access`` to the services, and closes it last.
///
/// On SQLite there are three pools on one file: one writer for the whole server
/// (``SingleConnectionDatabase``), a reader on each event loop (``DatabaseID/sqliteReads``), and
/// the background checkpoint's connection (``DatabaseID/sqliteCheckpoints``). On PostgreSQL, one
/// pool of up to four connections per event loop.
package final class DatabaseConnections: Sendable {
    /// Where the database is.
    package enum Location: Sendable, Equatable {
        /// An SQLite file (the data directory's).
        case sqlite(file: String)
        /// A PostgreSQL URL (`postgres://user:password@host:5432/database`).
        case postgres(url: String)
    }

    package let location: Location
    private let pools: Databases
    private let group: any EventLoopGroup
    private let logger: Logger

    /// Configures the pools; nothing connects until the first query.
    ///
    /// - Throws: the driver's error for a PostgreSQL URL it cannot read.
    /// - Parameter preparedStatements: on PostgreSQL, whether the stores' statements run prepared
    ///   (``PreparingPostgresDatabase``).
    package init(_ location: Location, threadPool: NIOThreadPool, group: any EventLoopGroup, logger: Logger,
                 preparedStatements: Bool = true) throws {
        self.location = location
        self.group = group
        self.logger = logger
        pools = Databases(threadPool: threadPool, on: group)
        switch location {
        case .postgres(let url):
            let postgres = try DatabaseConfigurationFactory.postgres(url: url, maxConnectionsPerEventLoop: 4, pruneInterval: .seconds(60))
            pools.use(preparedStatements ? .preparing(postgres) : postgres, as: .psql)
        case .sqlite(let file):
            pools.use(.singleConnection(.sqlite(.file(file))), as: .sqlite)
            pools.use(.sqlite(.file(file)), as: .sqliteReads, isDefault: false)
            pools.use(.singleConnection(.sqlite(.file(file))), as: .sqliteCheckpoints, isDefault: false)
        }
    }

    /// Whether the database is PostgreSQL.
    package var usesPostgres: Bool {
        if case .postgres = location { return true }
        return false
    }

    /// The writer: every write, and reads inside a transaction.
    package var primary: any Database { database(nil, on: group.any()) }

    /// Where a read that needs no transaction goes: SQLite's readers, or PostgreSQL's pool.
    package var reads: any Database { usesPostgres ? primary : database(.sqliteReads, on: group.any()) }

    /// What the services reach the database through.
    package var access: ServerDatabases {
        ServerDatabases(usesPostgres: usesPostgres, writer: { [self] in primary }, reader: { [self] in reads })
    }

    private func database(_ id: DatabaseID?, on loop: any EventLoop) -> any Database {
        // Every id used here is configured in init, so the pools always answer.
        pools.database(id, logger: logger, on: loop)!
    }

    /// Readies SQLite for the server: the write-ahead log (readers beside the writer, every commit
    /// durable), statement journals in memory, and the writer's checkpoint backstop. Nothing to
    /// do on PostgreSQL. Call it once, before anything else uses the database.
    package func prepare() async throws {
        guard !usesPostgres, let sql = primary as? any SQLDatabase else { return }
        // Set before the migrations, while nothing else uses the file: the change needs the
        // database to itself, and SQLite answers the old mode instead of failing when it
        // cannot have it, so the answer is checked.
        try await Self.enableWriteAheadLog(sql)
        // A statement that writes many rows in a transaction keeps a statement journal, to
        // undo itself alone if it fails half-way: in a temporary file (SQLite's default) a
        // write system call per page it touches, on the writer's path; in memory a copy.
        // The writer is one connection for the server's life. Issue 37.
        try await sql.raw("PRAGMA temp_store = MEMORY").run()
        try await WALCheckpoint.configureWriter(sql)
    }

    /// Runs the migrations the database has not had (``SchemaMigrations``).
    @discardableResult
    package func migrate() async throws -> SchemaMigrations.Outcome {
        try await SchemaMigrations.run(on: pools, logger: logger, loop: group.any())
    }

    /// Puts the SQLite database in WAL mode (persistent in the file), retrying briefly while
    /// another connection holds it; throws when it cannot.
    private static func enableWriteAheadLog(_ sql: any SQLDatabase) async throws {
        for attempt in 1...20 {
            let mode = try await sql.raw("PRAGMA journal_mode=WAL").first()?.decode(column: "journal_mode", as: String.self)
            if mode?.lowercased() == "wal" { return }
            if attempt < 20 { try await Task.sleep(for: .milliseconds(50)) }
        }
        throw ConfigurationError(setting: "--data-dir", problem: "the SQLite database could not be put in WAL mode (another process has it open?)",
                                 accepted: "a data directory no other program is using")
    }

    /// The background checkpoint of SQLite's log, on its own connection; nil on PostgreSQL.
    package func checkpoint() -> WALCheckpoint? {
        guard !usesPostgres, let connection = database(.sqliteCheckpoints, on: group.any()) as? any SQLDatabase else { return nil }
        return WALCheckpoint(connection: connection)
    }

    /// SQLite's reader on `loop` (tests read beside the writer with it); nil on PostgreSQL.
    package func reader(on loop: any EventLoop) -> (any SQLDatabase)? {
        usesPostgres ? nil : database(.sqliteReads, on: loop) as? any SQLDatabase
    }

    /// Every SQLite connection: the writer, the reader on each event loop, and the checkpoints'
    /// connection; none on PostgreSQL, whose caches live in its own server.
    package func sqliteConnections() -> [any SQLDatabase] {
        guard !usesPostgres else { return [] }
        let readers = group.makeIterator().map { database(.sqliteReads, on: $0) }
        return ([primary] + readers + [database(.sqliteCheckpoints, on: group.any())]).compactMap { $0 as? any SQLDatabase }
    }

    /// Drops every SQLite connection's page cache (`PRAGMA shrink_memory`); nothing on PostgreSQL.
    package func shrinkSQLiteMemory() async throws {
        for connection in sqliteConnections() {
            try await connection.raw("PRAGMA shrink_memory").run()
        }
    }

    /// The keys presented, read in batches on the read connections (SQLite's readers, or
    /// PostgreSQL's pool), each batch on an event loop of its own choosing.
    package func liveKeys(readers: Int) -> LiveKeys {
        let pools = pools, logger = logger, group = group, id: DatabaseID? = usesPostgres ? nil : .sqliteReads
        return LiveKeys(readers: readers) { pools.database(id, logger: logger, on: group.any()) }
    }

    /// A connection's configuration for listening to PostgreSQL's notifications (`LISTEN`, on a
    /// connection of its own); nil on SQLite.
    package func listenerConfiguration() throws -> PostgresConnection.Configuration? {
        guard case .postgres(let url) = location else { return nil }
        return try SQLPostgresConfiguration(url: url).coreConfiguration
    }

    /// Closes every pool; the database is not used after.
    package func shutdown() async {
        await pools.shutdownAsync()
    }
}

extension DatabaseID {
    /// The connection SQLite's background checkpoint runs on (``WALCheckpoint``), one for the
    /// server, beside the writer and the readers. Not configured on PostgreSQL.
    package static let sqliteCheckpoints = DatabaseID(string: "sqlite-checkpoints")

    /// SQLite's readers: a connection per event loop that only reads, beside the one writer of
    /// ``SingleConnectionDatabase``. In WAL mode a reader never waits for the writer, so the reads
    /// every request makes (its API key, the run it reports on) run beside the write transactions
    /// instead of queueing behind them. Not configured on PostgreSQL.
    package static let sqliteReads = DatabaseID(string: "sqlite-reads")
}
