import Fluent
import HandoverCore
import HandoverProtocol
import Logging
import Vapor

/// The schema's migrations, in the order they run, and how a start runs them.
///
/// Fluent's migrator writes two records at info for every migration it prepares ("Starting
/// prepare", "Finished prepare"): forty lines on a first start, before the server said anything.
/// Here each migration is logged at debug, and the run as a whole in one line at info: the
/// schema's version and how many migrations this start applied.
enum SchemaMigrations {
    /// Registers the domain's migrations (``HandoverCore/HandoverSchema``) on the application's
    /// default database.
    static func register(on application: Application) {
        application.migrations.add(HandoverSchema.migrations)
    }

    /// What a run did.
    struct Outcome: Equatable, Sendable {
        /// The schema's version after the run.
        var version: Int
        /// The migrations this run applied (0 when the database was up to date).
        var applied: Int
    }

    /// Refuses a database a later release has migrated (a rollback to an older binary): its
    /// tables hold what this build cannot read or would corrupt. The way back is the backup taken
    /// before the upgrade, restored with this release (`handover admin restore`).
    static func refuseNewerSchema(on database: any Database) async throws {
        let applied = try await database.query(MigrationLog.self).count()
        guard applied > HandoverSchema.migrations.count else { return }
        throw ConfigurationError(
            setting: "the database", problem: "schema version \(applied - 1) was written by a later release of Handover; this release (\(HandoverVersion.current)) knows up to \(HandoverSchema.version)",
            accepted: "run the release that upgraded it, or restore the backup taken before the upgrade (handover admin restore) and start this release on it")
    }

    /// Runs the migrations the database has not had, logs each at debug and the run in one line
    /// at info, and returns what it did.
    @discardableResult
    static func run(on application: Application) async throws -> Outcome {
        application.fluent.migrationLogLevel = .debug
        let migrator = application.migrator
        try await migrator.setupIfNeeded().get()
        try await refuseNewerSchema(on: application.db)
        let pending = try await migrator.previewPrepareBatch().get().count
        try await migrator.prepareBatch().get()
        let outcome = Outcome(version: HandoverSchema.version, applied: pending)
        application.logger.info("\(line(outcome))")
        return outcome
    }

    /// The one line a run logs.
    static func line(_ outcome: Outcome) -> String {
        switch outcome.applied {
        case 0: "Database schema version \(outcome.version), up to date"
        case outcome.version + 1: "Database schema version \(outcome.version), created (\(outcome.applied) migrations applied)"
        case 1: "Database schema version \(outcome.version) (1 migration applied)"
        default: "Database schema version \(outcome.version) (\(outcome.applied) migrations applied)"
        }
    }
}
