import Foundation
import HandoverConfiguration
import HandoverSchema
import HandoverCore
@testable import HandoverServer
import Logging
import NIOConcurrencyHelpers
import Testing
import Vapor

/// Start-up speaks once (issue 38): the migrations log one line at info, each migration at debug.
@Suite(.timeLimit(.minutes(5))) struct SchemaMigrationsTests {
    @Test func aFirstStartAndALaterOneEachLogOneLineAtInfo() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("handover-migrations-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = ServerConfiguration()
        configuration.dataDirectory = folder

        let first = try await Self.migrate(configuration)
        let count = SchemaHistory.migrations.count
        #expect(SchemaHistory.version == count - 1, "version 1 is the schema and its indexes")
        #expect(first.outcome == .init(version: SchemaHistory.version, applied: count))
        #expect(first.info == ["Database schema version \(SchemaHistory.version), created (\(count) migrations applied)"])
        // Fluent's own records ("Starting prepare", "Finished prepare") are still there for a reader at debug.
        #expect(first.debug.filter { $0.contains("prepare") }.count >= 2 * count, "\(first.debug.prefix(5))")

        let again = try await Self.migrate(configuration)
        #expect(again.outcome == .init(version: SchemaHistory.version, applied: 0))
        #expect(again.info == ["Database schema version \(SchemaHistory.version), up to date"])
    }

    /// The migration log knows each migration by name: the names a database has recorded since
    /// the first release stay, wherever the migrations' code lives (they moved from HandoverCore
    /// to HandoverSchema at version 37; a new name would run them again on existing tables).
    @Test func everyMigrationKeepsTheNameTheLogKnowsItBy() {
        let names = SchemaHistory.migrations.map(\.name)
        #expect(names.prefix(3) == ["HandoverCore.CreateSchema", "HandoverCore.CreateIndexes", "HandoverCore.CreateDashboardAndTester"])
        #expect(names.last == "HandoverCore.AddRunStartKeys")
        #expect(names.allSatisfy { $0.hasPrefix("HandoverCore.") } && Set(names).count == names.count, "\(names)")
    }

    @Test func theLineSaysHowManyWereApplied() {
        #expect(SchemaMigrations.line(.init(version: 21, applied: 1)) == "Database schema version 21 (1 migration applied)")
        #expect(SchemaMigrations.line(.init(version: 21, applied: 2)) == "Database schema version 21 (2 migrations applied)")
    }

    /// Migrates the configuration's database with a logger that keeps what it is given.
    static func migrate(_ configuration: ServerConfiguration) async throws -> (outcome: SchemaMigrations.Outcome, info: [String], debug: [String]) {
        let records = NIOLockedValueBox<[(Logger.Level, String)]>([])
        let application = try await Application.make(.testing)
        application.logger = Logger(label: "handover") { _ in KeepingLogHandler(records: records) }
        do {
            let connections = try HandoverServer.openDatabase(application, configuration)
            let outcome = try await connections.migrate()
            await connections.shutdown()
            try await application.asyncShutdown()
            let kept = records.withLockedValue { $0 }
            return (outcome, kept.filter { $0.0 >= .info }.map(\.1), kept.filter { $0.0 == .debug }.map(\.1))
        } catch {
            try? await application.asyncShutdown()
            throw error
        }
    }
}

/// Keeps every record at debug and above, with its level.
struct KeepingLogHandler: LogHandler {
    let records: NIOLockedValueBox<[(Logger.Level, String)]>
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .debug

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        records.withLockedValue { $0.append((event.level, "\(event.message)")) }
    }
}
