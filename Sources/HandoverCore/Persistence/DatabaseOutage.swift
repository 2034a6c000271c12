import AsyncKit
import NIOCore
import PostgresNIO

/// Whether an error says the database is out of reach for now, rather than that a request or a
/// statement is wrong: PostgreSQL refusing or dropping connections while it shuts down, restarts
/// or fails over (SQLSTATE class 57: `57P01` admin shutdown, `57P02` crash shutdown, `57P03`
/// cannot connect now), a connection that could not be made or was closed under a statement or
/// before it (as PostgresNIO's `PSQLError`, or its older `PostgresError`), a pool that lent no
/// connection within its request time-out (AsyncKit's `ConnectionPoolTimeoutError`: every
/// connection busy, as SQLite's are in a storm on a slow machine), and
/// ``DomainError/databaseUnavailable`` (a write past its deadline). The server answers these 503
/// with `Retry-After: 1`, so that a launcher waits a second and sends the request again, instead
/// of a 500 that reads as a bug.
package enum DatabaseOutage {
    /// The SQLSTATEs of a server going away or not yet back (PostgreSQL's class 57, "operator intervention").
    static let states: Set<String> = ["57P01", "57P02", "57P03"]

    /// Whether `error` is an outage.
    package static func matches(_ error: any Error) -> Bool {
        if let domain = error as? DomainError { return domain.kind == .unavailable }
        // Every connection of the pool busy for its whole request time-out: busy, not broken.
        if error is ConnectionPoolTimeoutError { return true }
        // PostgresNIO's older, future-based statements (SQLKit's path) report the same events
        // as `PostgresError`, or as the channel's own error.
        if let older = error as? PostgresError {
            switch older {
            case .server(let reported): return reported.fields[.sqlState].map(states.contains) ?? false
            case .connectionClosed: return true
            case .protocol(let text): return text == "Unexpected connection close"
            }
        }
        if let channel = error as? ChannelError { return channel == .ioOnClosedChannel || channel == .alreadyClosed || channel == .eof }
        guard let postgres = error as? PSQLError else { return false }
        switch postgres.code {
        // A statement sent on a pool's connection that had just been closed (by the client,
        // after the server ended it, as PostgreSQL does to every connection when it restarts):
        // the next connection will do.
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown: return true
        case .server: return postgres.serverInfo?[.sqlState].map(states.contains) ?? false
        default: return false
        }
    }
}
