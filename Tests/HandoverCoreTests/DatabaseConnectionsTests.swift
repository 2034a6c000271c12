import FluentKit
import Foundation
import HandoverSchema
@testable import HandoverCore
import Logging
import NIOCore
import NIOPosix
import SQLKit
import Testing

/// The server's database as the core opens it (``DatabaseConnections``), with no Vapor: SQLite's
/// three pools on one file (a writer, a reader per event loop, the checkpoint's connection), the
/// write-ahead log, the migrations once and then none, and PostgreSQL's one pool.
@Suite(.timeLimit(.minutes(5))) struct DatabaseConnectionsTests {
    static let logger = Logger(label: "handover.core-tests")

    /// Opens `location` on a thread pool of its own, runs `body`, and closes both.
    static func with<T>(_ location: DatabaseConnections.Location, _ body: (DatabaseConnections) async throws -> T) async throws -> T {
        let pool = NIOThreadPool(numberOfThreads: 2)
        pool.start()
        let connections = try DatabaseConnections(location, threadPool: pool, group: MultiThreadedEventLoopGroup.singleton, logger: logger)
        do {
            let result = try await body(connections)
            await connections.shutdown()
            try? await pool.shutdownGracefully()
            return result
        } catch {
            await connections.shutdown()
            try? await pool.shutdownGracefully()
            throw error
        }
    }

    @Test func sqliteIsPutInWALModeMigratedOnceAndReadBesideItsWriter() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("handover-connections-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("handover.sqlite").path
        try await Self.with(.sqlite(file: file)) { connections in
            #expect(!connections.usesPostgres && !connections.access.usesPostgres)
            try await connections.prepare()
            let writer = try #require(connections.primary as? any SQLDatabase)
            let mode = try await writer.raw("PRAGMA journal_mode").first()?.decode(column: "journal_mode", as: String.self)
            #expect(mode?.lowercased() == "wal")
            let backstop = try await writer.raw("PRAGMA wal_autocheckpoint").first()?.decode(column: "wal_autocheckpoint", as: Int.self)
            #expect(backstop == WALCheckpoint.writerBackstopPages)

            let first = try await connections.migrate()
            #expect(first.version == SchemaHistory.version && first.applied == SchemaHistory.migrations.count)
            #expect(try await connections.migrate().applied == 0)

            // A write on the writer is seen by a reader of every event loop, through the access the edge holds.
            try await writer.raw("CREATE TABLE probe (value TEXT)").run()
            try await writer.raw("INSERT INTO probe VALUES ('committed')").run()
            for loop in MultiThreadedEventLoopGroup.singleton.makeIterator() {
                let reader = try #require(connections.reader(on: loop))
                #expect(try await reader.raw("SELECT value FROM probe").first()?.decode(column: "value", as: String.self) == "committed")
            }
            #expect(try await connections.access.readSQL().raw("SELECT COUNT(*) AS n FROM probe").first()?.decode(column: "n", as: Int.self) == 1)

            #expect(connections.checkpoint() != nil)
            #expect(connections.sqliteConnections().count == 1 + MultiThreadedEventLoopGroup.singleton.makeIterator().map { $0 }.count + 1)
            try await connections.shrinkSQLiteMemory()
            #expect(try connections.listenerConfiguration() == nil)
        }
    }

    @Test func postgresHasOnePoolForWritesAndReads() async throws {
        guard DomainStore.postgresURL != nil else {
            print("SKIP DatabaseConnectionsTests' PostgreSQL case: HANDOVER_TEST_POSTGRES_URL is not set (bash .ci/run sets it)")
            return
        }
        try await Self.with(.postgres(url: try await DomainDatabase.freshPostgres())) { connections in
            #expect(connections.usesPostgres)
            try await connections.prepare()  // nothing to do on PostgreSQL
            #expect(try await connections.migrate().applied == SchemaHistory.migrations.count)
            #expect(connections.checkpoint() == nil && connections.sqliteConnections().isEmpty)
            #expect(connections.reader(on: MultiThreadedEventLoopGroup.singleton.any()) == nil)
            #expect(try connections.listenerConfiguration() != nil)
            let count = try await connections.access.readSQL().raw("SELECT COUNT(*) AS n FROM _fluent_migrations").first()?.decode(column: "n", as: Int.self)
            #expect(count == SchemaHistory.migrations.count)
        }
    }
}
