import FluentKit
import NIOCore

/// A database configuration whose driver keeps one connection for the whole server, not one per
/// event loop.
///
/// SQLite lets one connection write at a time. Fluent's SQLite driver opens a connection on every
/// event loop, and SQLiteNIO's busy handler retries at once, without sleeping: while a request on
/// one loop held a write transaction (across several awaits), a request on the other loop spun on
/// the database lock and burned a core. With this wrapper the driver is built on one event loop,
/// so it has one connection: statements queue in the connection pool's wait list instead, in the
/// order they were asked for, and a transaction waits its turn without costing CPU.
///
/// The queries' futures complete on that one loop; `async` callers do not notice. PostgreSQL is not
/// wrapped: it has row locks and a pool of connections per loop.
package struct SingleConnectionDatabase: DatabaseConfiguration {
    /// The configuration whose driver is built on one loop (Fluent's SQLite configuration).
    package var wrapped: any DatabaseConfiguration

    package var middleware: [any AnyModelMiddleware] {
        get { wrapped.middleware }
        set { wrapped.middleware = newValue }
    }

    package func makeDriver(for databases: Databases) -> any DatabaseDriver {
        let loop = databases.eventLoopGroup.next()
        let oneLoop = Databases(threadPool: databases.threadPool, on: loop)
        return Driver(wrapped: wrapped.makeDriver(for: oneLoop), loop: loop)
    }

    /// Hands every caller a database on ``loop``, whichever loop asked.
    package struct Driver: DatabaseDriver {
        let wrapped: any DatabaseDriver
        let loop: any EventLoop

        package func makeDatabase(with context: DatabaseContext) -> any Database {
            wrapped.makeDatabase(with: DatabaseContext(
                configuration: context.configuration, logger: context.logger, eventLoop: loop,
                history: context.history, pageSizeLimit: context.pageSizeLimit, shouldTrace: context.shouldTrace))
        }

        package func shutdown() { wrapped.shutdown() }
        package func shutdownAsync() async { await wrapped.shutdownAsync() }
    }
}

extension DatabaseConfigurationFactory {
    /// `factory`'s configuration on one connection for the whole server (see ``SingleConnectionDatabase``).
    package static func singleConnection(_ factory: DatabaseConfigurationFactory) -> DatabaseConfigurationFactory {
        DatabaseConfigurationFactory { SingleConnectionDatabase(wrapped: factory.make()) }
    }
}
