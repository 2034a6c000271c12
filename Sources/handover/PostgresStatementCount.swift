import Foundation
import Logging
import PostgresNIO

/// The statements PostgreSQL ran on one database, counted by `pg_stat_statements` (every
/// statement's calls, `BEGIN` and `COMMIT` included when `pg_stat_statements.track_utility` is
/// on, as `scripts/start-postgres.sh` sets it with `HANDOVER_PG_STATEMENTS=1`).
///
/// The extension must be preloaded (`shared_preload_libraries = 'pg_stat_statements'`);
/// ``open(url:)`` creates it in the database when it is not there yet, and is nil when it cannot.
final class PostgresStatementCount: Sendable {
    private let connection: PostgresConnection
    private let logger = Logger(label: "handover.bench.statements")

    private init(connection: PostgresConnection) {
        self.connection = connection
    }

    /// Connects to the database of a `postgres://user[:password]@host[:port]/database` URL.
    static func open(url: String) async -> PostgresStatementCount? {
        guard let components = URLComponents(string: url), let host = components.host, let user = components.user else { return nil }
        let database = components.path.split(separator: "/").first.map(String.init)
        let configuration = PostgresConnection.Configuration(host: host, port: components.port ?? 5432, username: user,
                                                              password: components.password, database: database, tls: .disable)
        let logger = Logger(label: "handover.bench.statements")
        guard let connection = try? await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger) else { return nil }
        let count = PostgresStatementCount(connection: connection)
        guard (try? await connection.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements", logger: logger)) != nil,
              await count.total() != nil else {
            await count.close()
            return nil
        }
        return count
    }

    /// Statements run on this database so far (less the ones this count sends).
    func total() async -> Int64? {
        let query: PostgresQuery = """
            SELECT coalesce(sum(calls), 0)::bigint FROM pg_stat_statements
            WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
              AND query NOT LIKE '%pg_stat_statements%'
            """
        guard let rows = try? await connection.query(query, logger: logger) else { return nil }
        do {
            for try await calls in rows.decode(Int64.self) { return calls }
        } catch {
            return nil
        }
        return nil
    }

    func close() async {
        try? await connection.close()
    }
}
