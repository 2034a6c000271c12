import Fluent
import FluentKit
import HandoverCore
import Vapor

extension DatabaseID {
    /// SQLite's readers: a connection per event loop that only reads, beside the one writer of
    /// ``SingleConnectionDatabase``. In WAL mode a reader never waits for the writer, so the reads
    /// every request makes (its API key, the run it reports on) run beside the write transactions
    /// instead of queueing behind them. Not configured on PostgreSQL.
    static let sqliteReads = DatabaseID(string: "sqlite-reads")
}

extension Application {
    /// Where a read that needs no transaction and has no request goes (the dashboard's live
    /// overview): as ``Request/readDB``.
    var readDB: any Database {
        databases.configuration(for: .sqliteReads) == nil ? db : db(.sqliteReads)
    }
}

extension Request {
    /// Where a read that needs no transaction goes: SQLite's read connections when they are
    /// configured, the request's database otherwise (PostgreSQL). It sees every committed write.
    /// Nothing may write through it.
    var readDB: any Database {
        application.databases.configuration(for: .sqliteReads) == nil ? db : db(.sqliteReads)
    }
}

extension LiveKeys {
    /// Keys read on the application's read connections (SQLite's readers, or PostgreSQL's pool),
    /// each batch on an event loop of its own choosing.
    static func reading(_ application: Application, readers: Int) -> LiveKeys {
        let id: DatabaseID? = application.databases.configuration(for: .sqliteReads) == nil ? nil : .sqliteReads
        let databases = application.databases, logger = application.logger, loops = application.eventLoopGroup
        return LiveKeys(readers: readers) { databases.database(id, logger: logger, on: loops.any()) }
    }
}
