import FluentKit
import Logging
import NIOConcurrencyHelpers
import NIOCore
import PostgresKit
import PostgresNIO
import SQLKit

/// FluentPostgresDriver's database, with every SQL statement the stores send run as a prepared
/// statement once ``PreparedStatements`` gives it a name.
///
/// It wraps the driver's database and forwards all of it (Fluent's model queries, schema changes,
/// transactions, connections), except SQLKit's `execute(sql:)`, the way every store's statement
/// arrives. There it serializes the statement as PostgresKit would, encodes its values the way
/// PostgresKit does for the types that encode themselves (`PostgresEncodable`: strings, numbers,
/// UUIDs, dates, data, arrays of those, `NULL`), and runs it with PostgresNIO's prepared-statement
/// support on the connection the statement was leased (inside a transaction, the transaction's).
/// A statement with a value of any other type, or one without a name yet, goes to the driver
/// unchanged.
package struct PreparingPostgresDatabase: Sendable {
    let wrapped: any Database & SQLDatabase & PostgresDatabase
    let statements: PreparedStatements

    init(_ wrapped: any Database & SQLDatabase & PostgresDatabase, statements: PreparedStatements) {
        self.wrapped = wrapped
        self.statements = statements
    }

    private func wrap(_ database: any Database) -> any Database {
        guard let postgres = database as? any Database & SQLDatabase & PostgresDatabase else { return database }
        return PreparingPostgresDatabase(postgres, statements: statements)
    }
}

extension PreparingPostgresDatabase: Database {
    package var context: DatabaseContext { wrapped.context }
    package var inTransaction: Bool { wrapped.inTransaction }

    package func execute(query: DatabaseQuery, onOutput: @escaping @Sendable (any DatabaseOutput) -> Void) -> EventLoopFuture<Void> {
        wrapped.execute(query: query, onOutput: onOutput)
    }

    package func execute(schema: DatabaseSchema) -> EventLoopFuture<Void> { wrapped.execute(schema: schema) }
    package func execute(enum: DatabaseEnum) -> EventLoopFuture<Void> { wrapped.execute(enum: `enum`) }

    package func transaction<T>(_ closure: @escaping @Sendable (any Database) -> EventLoopFuture<T>) -> EventLoopFuture<T> {
        wrapped.transaction { [self] in closure(wrap($0)) }
    }

    package func withConnection<T>(_ closure: @escaping @Sendable (any Database) -> EventLoopFuture<T>) -> EventLoopFuture<T> {
        wrapped.withConnection { [self] in closure(wrap($0)) }
    }
}

extension PreparingPostgresDatabase: TransactionControlDatabase {
    package func beginTransaction() -> EventLoopFuture<Void> { raw("BEGIN").run() }
    package func commitTransaction() -> EventLoopFuture<Void> { raw("COMMIT").run() }
    package func rollbackTransaction() -> EventLoopFuture<Void> { raw("ROLLBACK").run() }
}

extension PreparingPostgresDatabase: PostgresDatabase {
    package func send(_ request: any PostgresRequest, logger: Logger) -> EventLoopFuture<Void> {
        wrapped.send(request, logger: logger)
    }

    package func withConnection<T>(_ closure: @escaping (PostgresConnection) -> EventLoopFuture<T>) -> EventLoopFuture<T> {
        wrapped.withConnection(closure)
    }
}

extension PreparingPostgresDatabase: SQLDatabase {
    package var version: (any SQLDatabaseReportedVersion)? { wrapped.version }
    package var dialect: any SQLDialect { wrapped.dialect }
    package var queryLogLevel: Logger.Level? { wrapped.queryLogLevel }

    package func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        eventLoop.makeFutureWithTask { try await self.execute(sql: query, onRow) }
    }

    package func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        let (sql, values) = serialize(query)
        guard let (bindings, types) = Self.bindings(values),
              let shape = statements.shape(for: sql, types: types) else {
            return try await wrapped.execute(sql: query, onRow)
        }
        if let level = queryLogLevel {
            logger.log(level: level, "Executing query", metadata: ["sql": .string(sql), "prepared": .string(shape.name)])
        }
        let statement = ShapedStatement(bindings: bindings)
        let logger = logger
        let run: @Sendable (PostgresConnection) async throws -> Void = { connection in
            try await ShapedStatement.$shape.withValue(shape) {
                for try await row in try await connection.execute(statement, logger: logger) {
                    onRow(row.sql())
                }
            }
        }
        do {
            if wrapped.inTransaction {
                // The transaction's connection: PostgresTransaction answers for it closing.
                let (connection, release) = try await transactionConnection()
                defer { release.succeed() }
                try await run(connection)
            } else {
                try await wrapped.withConnection { (connection: PostgresConnection) in
                    Self.untilClosed(connection) { try await run(connection) }
                }.get()
            }
        } catch {
            if Self.mayHaveFailedPreparing(error) { statements.failed(shape) }
            throw error
        }
    }

    /// The connection of the transaction this database is bound to, held until `release`
    /// succeeds, for the calling task to send its statement on.
    private func transactionConnection() async throws -> (PostgresConnection, release: EventLoopPromise<Void>) {
        let waiting = NIOLockedValueBox<CheckedContinuation<(PostgresConnection, release: EventLoopPromise<Void>), any Error>?>(nil)
        return try await withCheckedThrowingContinuation { continuation in
            waiting.withLockedValue { $0 = continuation }
            wrapped.withConnection { (connection: PostgresConnection) -> EventLoopFuture<Void> in
                let release = connection.eventLoop.makePromise(of: Void.self)
                waiting.withLockedValue { $0?.resume(returning: (connection, release)); $0 = nil }
                return release.futureResult
            }.whenFailure { error in
                waiting.withLockedValue { $0?.resume(throwing: error); $0 = nil }
            }
        }
    }

    /// Runs `body` on `connection`, just leased from the pool (this is called on its event loop,
    /// while it is open), and answers ``DomainError/connectionLost`` as soon as the connection
    /// closes if that comes first: PostgresNIO 1.33 never answers a statement written to a closed
    /// connection, and `body` writes from a task of its own, later than the lease
    /// (``PostgresTransaction`` has the whole story).
    static func untilClosed(_ connection: PostgresConnection, _ body: @escaping @Sendable () async throws -> Void) -> EventLoopFuture<Void> {
        let answered = connection.eventLoop.makePromise(of: Void.self)
        let pending = NIOLockedValueBox(true)
        let answer: @Sendable (Result<Void, any Error>) -> Void = { result in
            guard pending.withLockedValue({ isPending in
                defer { isPending = false }
                return isPending
            }) else { return }
            answered.completeWith(result)
        }
        ConnectionCloseWatch.shared.hold(connection) { answer(.failure(DomainError.connectionLost)) }
        Task {
            do { answer(.success(try await body())) } catch { answer(.failure(error)) }
        }
        return answered.futureResult.always { _ in ConnectionCloseWatch.shared.release(connection) }
    }

    /// Whether `error` could have come from preparing the statement, which PostgresNIO would then
    /// answer again for every later use of its name on that connection: an error of PostgreSQL's
    /// (``mayHaveFailedPreparing(sqlState:)``). An error of the connection's own goes with the
    /// connection and its names.
    static func mayHaveFailedPreparing(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError, error.code == .server else { return false }
        return mayHaveFailedPreparing(sqlState: error.serverInfo?[.sqlState])
    }

    /// Whether PostgreSQL's error `sqlState` could have come from preparing a statement: any but
    /// those only executing one raises, a value out of range (class 22), a constraint (23), a
    /// serialization failure or deadlock (40).
    static func mayHaveFailedPreparing(sqlState: String?) -> Bool {
        let state = sqlState ?? ""
        return !["22", "23", "40"].contains { state.hasPrefix($0) }
    }

    /// `values` as PostgresKit binds them, with each one's type; `nil` if one of them is of a type
    /// that does not encode itself (PostgresKit then encodes it as JSON or through its older path).
    static func bindings(_ values: [any Encodable & Sendable]) -> (PostgresBindings, [PostgresDataType])? {
        var bindings = PostgresBindings(capacity: values.count)
        var types: [PostgresDataType] = []
        types.reserveCapacity(values.count)
        for value in values {
            // The values that encode themselves first: most values are, and each cast costs.
            if let value = value as? any PostgresThrowingDynamicTypeEncodable {
                guard (try? bindings.append(value, context: .default)) != nil else { return nil }
                types.append(value.psqlType)
            } else if isNil(value) {
                bindings.appendNull()
                types.append(.null)
            } else {
                return nil
            }
        }
        return (bindings, types)
    }

    /// Whether `value` is an optional's `nil`. (Converting it to `Optional<Any>`, as PostgresKit
    /// does, gives `.some` for a `nil` in an existential box.)
    private static func isNil(_ value: any Encodable & Sendable) -> Bool {
        (value as? any OptionalValue)?.isNone ?? false
    }

}

/// An optional, whatever it wraps.
private protocol OptionalValue { var isNone: Bool { get } }
extension Optional: OptionalValue { var isNone: Bool { self == nil } }

/// The one statement type that runs every ``PreparedStatements/Shape``.
///
/// PostgresNIO's prepared statements take their name, SQL and parameter types from static
/// properties of a type, one type per statement written in the source. The stores build their
/// statements at run time, so these properties read the shape of the statement being run from a
/// task-local value, which ``PreparingPostgresDatabase`` sets around the call that runs it.
/// `PostgresConnection.execute(_:logger:)` reads them in the calling task, before it first
/// suspends and again when it reports an error, inside that scope either way.
struct ShapedStatement: PostgresPreparedStatement {
    @TaskLocal static var shape = PreparedStatements.Shape(name: "", sql: "", types: [])

    static var name: String { shape.name }
    static var sql: String { shape.sql }
    static var bindingDataTypes: [PostgresDataType] { shape.types }

    let bindings: PostgresBindings

    func makeBindings() -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) -> PostgresRow { row }
}

/// A PostgreSQL configuration of FluentPostgresDriver's whose databases are
/// ``PreparingPostgresDatabase``s.
package struct PreparingPostgresConfiguration: DatabaseConfiguration {
    package var wrapped: any DatabaseConfiguration
    let statements: PreparedStatements

    package var middleware: [any AnyModelMiddleware] {
        get { wrapped.middleware }
        set { wrapped.middleware = newValue }
    }

    package func makeDriver(for databases: Databases) -> any DatabaseDriver {
        Driver(wrapped: wrapped.makeDriver(for: databases), statements: statements)
    }

    struct Driver: DatabaseDriver {
        let wrapped: any DatabaseDriver
        let statements: PreparedStatements

        func makeDatabase(with context: DatabaseContext) -> any Database {
            let database = wrapped.makeDatabase(with: context)
            guard let postgres = database as? any Database & SQLDatabase & PostgresDatabase else { return database }
            return PreparingPostgresDatabase(postgres, statements: statements)
        }

        func shutdown() { wrapped.shutdown() }
        func shutdownAsync() async { await wrapped.shutdownAsync() }
    }
}

extension DatabaseConfigurationFactory {
    /// `factory`'s PostgreSQL databases, running the stores' statements prepared
    /// (``PreparingPostgresDatabase``).
    package static func preparing(_ factory: DatabaseConfigurationFactory, statements: PreparedStatements = .shared) -> DatabaseConfigurationFactory {
        DatabaseConfigurationFactory { PreparingPostgresConfiguration(wrapped: factory.make(), statements: statements) }
    }
}
