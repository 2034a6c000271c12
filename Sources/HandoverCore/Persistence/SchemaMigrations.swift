import FluentKit
import HandoverSchema
import HandoverProtocol
import Logging
import NIOCore

/// The schema's migrations, in the order they run, and how a start runs them.
///
/// Fluent's migrator writes two records at info for every migration it prepares ("Starting
/// prepare", "Finished prepare"): forty lines on a first start, before the server said anything.
/// Here each migration is logged at debug, and the run as a whole in one line at info: the
/// schema's version and how many migrations this start applied.
package enum SchemaMigrations {
    /// What a run did.
    package struct Outcome: Equatable, Sendable {
        /// The schema's version after the run.
        package var version: Int
        /// The migrations this run applied (0 when the database was up to date).
        package var applied: Int

        package init(version: Int, applied: Int) {
            self.version = version
            self.applied = applied
        }
    }

    /// Refuses a database a later release has migrated (a rollback to an older binary): its
    /// tables hold what this build cannot read or would corrupt. The way back is the backup taken
    /// before the upgrade, restored with this release (`handover admin restore`).
    package static func refuseNewerSchema(on database: any Database) async throws {
        let applied = try await database.query(MigrationLog.self).count()
        guard applied > SchemaHistory.migrations.count else { return }
        throw ConfigurationError(
            setting: "the database", problem: "schema version \(applied - 1) was written by a later release of Handover; this release (\(HandoverVersion.current)) knows up to \(SchemaHistory.version)",
            accepted: "run the release that upgraded it, or restore the backup taken before the upgrade (handover admin restore) and start this release on it")
    }

    /// Runs the migrations the database has not had, logs each at debug and the run in one line
    /// at info, and returns what it did.
    @discardableResult
    package static func run(on databases: Databases, logger: Logger, loop: any EventLoop) async throws -> Outcome {
        let migrations = Migrations()
        migrations.add(SchemaHistory.migrations)
        let migrator = Migrator(databases: databases, migrations: migrations, logger: logger, on: loop, migrationLogLevel: .debug)
        try await migrator.setupIfNeeded().get()
        guard let database = databases.database(logger: logger, on: loop) else {
            throw ConfigurationError(setting: "the database", problem: "no database is configured", accepted: "SQLite or PostgreSQL")
        }
        try await refuseNewerSchema(on: database)
        let pending = try await migrator.previewPrepareBatch().get().count
        try await migrator.prepareBatch().get()
        let outcome = Outcome(version: SchemaHistory.version, applied: pending)
        logger.info("\(line(outcome))")
        return outcome
    }

    /// The one line a run logs.
    package static func line(_ outcome: Outcome) -> String {
        switch outcome.applied {
        case 0: "Database schema version \(outcome.version), up to date"
        case outcome.version + 1: "Database schema version \(outcome.version), created (\(outcome.applied) migrations applied)"
        case 1: "Database schema version \(outcome.version) (1 migration applied)"
        default: "Database schema version \(outcome.version) (\(outcome.applied) migrations applied)"
        }
    }
}
