import FluentKit
import FluentPostgresDriver
import Foundation
@testable import HandoverCore
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import PropertyBased
import SQLKit
import Testing

/// ``PreparedStatements`` (which statements get a name) and ``PreparingPostgresDatabase`` (the
/// stores' statements run under that name on PostgreSQL).
@Suite(.timeLimit(.minutes(2))) struct PreparedStatementsTests {
    static let logger = Logger(label: "prepared-statements-tests")

    // MARK: Which statements get a name

    @Test func aStatementIsNamedOnItsThirdSightingAndKeepsTheName() {
        let statements = PreparedStatements()
        let sql = "SELECT id FROM devices WHERE id = $1"
        #expect(statements.shape(for: sql, types: [.uuid]) == nil)
        #expect(statements.shape(for: sql, types: [.uuid]) == nil)
        let shape = statements.shape(for: sql, types: [.uuid])
        #expect(shape?.sql == sql)
        #expect(shape?.types == [.uuid])
        #expect(statements.shape(for: sql, types: [.uuid]) == shape)
        // PostgreSQL truncates a name past 63 bytes, which would make two statements one.
        #expect((shape?.name.utf8.count ?? 64) <= 63)
    }

    @Test func theSameTextWithOtherParameterTypesIsAnotherStatement() {
        let statements = PreparedStatements(sightings: 1)
        let sql = "UPDATE devices SET status_reason = $1 WHERE id = $2"
        let withText = statements.shape(for: sql, types: [.text, .uuid])
        let withNull = statements.shape(for: sql, types: [.null, .uuid])
        #expect(withText != nil && withNull != nil)
        #expect(withText?.name != withNull?.name)
    }

    @Test func schemaChangesAndTransactionControlAreNeverNamed() {
        let statements = PreparedStatements(sightings: 1)
        for sql in ["BEGIN", "COMMIT", "CREATE TABLE t (n int)", "ALTER TABLE t ADD COLUMN m int", "DROP TABLE t", "SET lock_timeout = 1000"] {
            #expect(statements.shape(for: sql, types: []) == nil, "\(sql)")
        }
        for sql in ["SELECT 1", " with x AS (SELECT 1) SELECT * FROM x", "INSERT INTO t VALUES (1)", "update t SET n = 2", "DELETE FROM t", "(SELECT 1) UNION (SELECT 2)"] {
            #expect(statements.shape(for: sql, types: []) != nil, "\(sql)")
        }
    }

    /// The first word decides, in any case, after any spaces, line breaks, tabs and opening
    /// parentheses; a longer word that begins like a preparable one (`SELECTED`) is not one.
    @Test func theFirstWordDecidesWhatIsPrepared() async {
        let preparable = ["SELECT", "INSERT", "UPDATE", "DELETE", "WITH"]
        let words = preparable + ["BEGIN", "COMMIT", "CREATE", "ALTER", "DROP", "SET", "LISTEN", "SELECTED", "WITHIN", "UPDATES", "VALUES", ""]
        let lead = Gen<Character?>.element(of: [" ", "\n", "\t", "("]).compactMap { $0 }.array(of: 0...4).map { String($0) }
        let word = Gen<String?>.element(of: words).compactMap { $0 }
        let after = Gen<String?>.element(of: [" x", "\nx", "(", " * FROM t", "", "1", "_x", ";"]).compactMap { $0 }
        await propertyCheck(count: 500, input: lead, word, after, Gen<UInt64>.uint64()) { lead, word, after, caseBits in
            var cased = ""
            for (offset, letter) in word.enumerated() {
                cased += caseBits & (1 << UInt64(offset % 64)) == 0 ? letter.lowercased() : String(letter)
            }
            let sql = lead + cased + after
            // A digit or underscore right after the word lengthens it into a name ("SELECT1").
            let lengthened = after.first.map { $0.isNumber || $0 == "_" } ?? false
            #expect(PreparedStatements.isPreparable(sql) == (preparable.contains(word) && !lengthened), "\(sql.debugDescription)")
        }
    }

    @Test func pastTheLimitNewStatementsStayUnnamed() {
        let statements = PreparedStatements(sightings: 1, limit: 2)
        #expect(statements.shape(for: "SELECT 1", types: []) != nil)
        #expect(statements.shape(for: "SELECT 2", types: []) != nil)
        #expect(statements.shape(for: "SELECT 3", types: []) == nil)
        #expect(statements.shape(for: "SELECT 1", types: []) != nil)
    }

    /// A limit so large that sixteen times it overflows counts on rather than trapping.
    @Test func aLimitPastSixteenthOfIntMaxIsCountedWithoutOverflow() {
        let statements = PreparedStatements(limit: .max)
        #expect(statements.shape(for: "SELECT 1", types: []) == nil)
        #expect(statements.shape(for: "SELECT 1", types: []) == nil)
        #expect(statements.shape(for: "SELECT 1", types: []) != nil)
    }

    @Test func aFailedStatementMovesToANewNameThenStaysUnnamed() throws {
        let statements = PreparedStatements(sightings: 1, generations: 3)
        let first = try #require(statements.shape(for: "SELECT 1", types: []))
        statements.failed(first)
        let second = try #require(statements.shape(for: "SELECT 1", types: []))
        #expect(second.name != first.name)
        // A failure reported late, for a name already replaced, changes nothing.
        statements.failed(first)
        #expect(statements.shape(for: "SELECT 1", types: []) == second)
        statements.failed(second)
        let third = try #require(statements.shape(for: "SELECT 1", types: []))
        statements.failed(third)
        #expect(statements.shape(for: "SELECT 1", types: []) == nil)
    }

    @Test func onlyErrorsThatPreparingCanRaiseRenameAStatement() {
        #expect(PreparingPostgresDatabase.mayHaveFailedPreparing(sqlState: "25P02"))  // in a failed transaction
        #expect(PreparingPostgresDatabase.mayHaveFailedPreparing(sqlState: "42P01"))  // no such table
        #expect(!PreparingPostgresDatabase.mayHaveFailedPreparing(sqlState: "23505"))  // a unique key
        #expect(!PreparingPostgresDatabase.mayHaveFailedPreparing(sqlState: "40P01"))  // a deadlock
        #expect(!PreparingPostgresDatabase.mayHaveFailedPreparing(sqlState: "22012"))  // division by zero
        // The connection's own errors go with the connection, and its names with it.
        #expect(!PreparingPostgresDatabase.mayHaveFailedPreparing(DomainError.connectionLost))
    }

    @Test func valuesAreBoundAsPostgresKitBindsThem() throws {
        let id = UUID()
        let none: String? = nil
        let values: [any Encodable & Sendable] = ["a", id, 7, true, Date(timeIntervalSince1970: 0), Data([1, 2]), ["x", "y"], none, Optional("b")]
        let (bindings, types) = try #require(PreparingPostgresDatabase.bindings(values))
        #expect(bindings.count == values.count)
        #expect(types == [.text, .uuid, .int8, .bool, .timestamptz, .bytea, .textArray, .null, .text])
        struct Document: Codable, Sendable { var n: Int }
        // A value that does not encode itself goes to the driver's own path (JSON).
        #expect(PreparingPostgresDatabase.bindings([Document(n: 1)]) == nil)
    }

    // MARK: On PostgreSQL

    /// A pool of one connection (``PostgresTransactionTests/withPool(_:suite:configure:_:)``)
    /// whose statements `statements` names.
    static func withPool(_ test: String, statements: PreparedStatements, _ body: (any Database) async throws -> Void) async throws {
        try await PostgresTransactionTests.withPool(test, suite: "PreparedStatementsTests", configure: { .preparing($0, statements: statements) }) { database, _ in
            try await body(database)
        }
    }

    static func sql(_ database: any Database) -> any SQLDatabase { database as! any SQLDatabase }

    /// The connection's prepared statements of ours (`pg_prepared_statements` is per session; the
    /// pool has one connection).
    static func prepared(_ database: any Database) async throws -> [String] {
        try await sql(database).raw("SELECT name FROM pg_prepared_statements WHERE name LIKE 'handover_%' ORDER BY name")
            .all(decodingColumn: "name", as: String.self)
    }

    /// The same statement answers the same rows sent unnamed and prepared, for every type the
    /// stores bind, `NULL` included, and is prepared on the connection under its shape's name.
    @Test func aPreparedStatementAnswersAsAnUnnamedOne() async throws {
        let statements = PreparedStatements(sightings: 2)
        try await Self.withPool("aPreparedStatementAnswersAsAnUnnamedOne", statements: statements) { database in
            let table = "handover_prepared_\(UUID().uuidString.prefix(8).lowercased())"
            let sql = Self.sql(database)
            try await sql.raw("CREATE TABLE \(unsafeRaw: table) (id uuid PRIMARY KEY, name text, n bigint, ok boolean, at timestamptz, bytes bytea, tags text[], note text)").run()
            let at = Date(timeIntervalSince1970: 1_700_000_000.25)
            var ids: [UUID] = []
            for n in 0..<3 {
                let id = UUID()
                ids.append(id)
                let note: String? = n == 1 ? nil : "note \(n)"
                try await sql.raw("""
                    INSERT INTO \(unsafeRaw: table) (id, name, n, ok, at, bytes, tags, note) \
                    VALUES (\(bind: id), \(bind: "name \(n)"), \(bind: n), \(bind: n % 2 == 0), \(bind: at), \(bind: Data([UInt8(n), 9])), \(bind: ["a", "b\(n)"]), \(bind: note))
                    """).run()
            }
            struct Row: Decodable, Equatable { var id: UUID; var name: String; var n: Int; var ok: Bool; var at: Date; var bytes: Data; var tags: [String]; var note: String? }
            var answers: [[Row]] = []
            for _ in 0..<3 {
                answers.append(try await sql.raw("SELECT id, name, n, ok, at, bytes, tags, note FROM \(unsafeRaw: table) WHERE n >= \(bind: 0) ORDER BY n").all(decoding: Row.self))
            }
            #expect(answers[0].count == 3)
            #expect(answers[0].map(\.id) == ids)
            #expect(answers[0][1].note == nil && answers[0][2].note == "note 2")
            #expect(answers[0][2].tags == ["a", "b2"] && answers[0][2].bytes == Data([2, 9]) && answers[0][2].at == at)
            #expect(answers[1] == answers[0] && answers[2] == answers[0])
            let names = try await Self.prepared(database)
            let select = "SELECT id, name, n, ok, at, bytes, tags, note FROM \(table) WHERE n >= $1 ORDER BY n"
            let shape = try #require(statements.shape(for: select, types: [.int8]))
            #expect(names.contains(shape.name))
            // The insert with a NULL and those without are two statements; the first insert with a
            // value was seen twice, so it is prepared too.
            #expect(names.count >= 2)
            try await sql.raw("DROP TABLE \(unsafeRaw: table)").run()
        }
    }

    /// PostgreSQL refuses to prepare a statement in a transaction an earlier error aborted, and
    /// PostgresNIO answers every later use of that name on the connection with the same refusal.
    /// The statement moves to a new name, so once the transaction has rolled back it runs again.
    @Test func aPreparationRefusedInAnAbortedTransactionIsNotRemembered() async throws {
        let statements = PreparedStatements(sightings: 1)
        try await Self.withPool("aPreparationRefusedInAnAbortedTransactionIsNotRemembered", statements: statements) { database in
            struct Expected: Error {}
            await #expect(throws: (any Error).self) {
                try await database.inTransaction { db in
                    try? await Self.sql(db).raw("SELECT 1 / \(bind: 0) AS n").run()
                    // The transaction is aborted: this statement's preparation is refused (25P02).
                    _ = try await Self.sql(db).raw("SELECT \(bind: 41) + 1 AS n").first(decodingColumn: "n", as: Int.self)
                }
            }
            let n = try await Self.sql(database).raw("SELECT \(bind: 41) + 1 AS n").first(decodingColumn: "n", as: Int.self)
            #expect(n == 42)
        }
    }
}
