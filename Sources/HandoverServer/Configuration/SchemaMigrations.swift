import Fluent
import HandoverCore
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

    /// Runs the migrations the database has not had, logs each at debug and the run in one line
    /// at info, and returns what it did.
    @discardableResult
    static func run(on application: Application) async throws -> Outcome {
        application.fluent.migrationLogLevel = .debug
        let migrator = application.migrator
        try await migrator.setupIfNeeded().get()
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
