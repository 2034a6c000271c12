import FluentKit
import Foundation
import Logging
import PostgresNIO
import SQLKit

/// Tells every instance's event streams that a run changed.
///
/// On SQLite there is one instance, and the change goes straight to its ``RunEventHub``. On
/// PostgreSQL the change goes out as `NOTIFY handover_run_changed, '<run id>'`, and every instance
/// (this one included) hears it through a `LISTEN` connection and tells its own hub.
package struct RunChangeNotifier: Sendable {
    package static let channel = "handover_run_changed"

    package let hub: RunEventHub
    package let usesPostgres: Bool
    package let logger: Logger

    package init(hub: RunEventHub, usesPostgres: Bool, logger: Logger) {
        self.hub = hub
        self.usesPostgres = usesPostgres
        self.logger = logger
    }

    package func runChanged(_ run: UUID, on database: Database) async {
        guard usesPostgres else {
            hub.publish(run)
            return
        }
        do {
            guard let sql = database as? any SQLDatabase else { return }
            try await sql.raw("SELECT pg_notify(\(bind: Self.channel), \(bind: run.uuidString.lowercased()))").run()
        } catch {
            // The change is committed; only live viewers miss it. Tell local ones directly.
            logger.warning("NOTIFY failed; live updates on other instances may lag", metadata: ["error": "\(error)"])
            hub.publish(run)
        }
    }

    /// Inside a transaction: on PostgreSQL, one NOTIFY per run (one statement for all), which the database delivers at
    /// COMMIT and drops on ROLLBACK. On SQLite nothing; call ``runChangedAfterCommit(_:)``.
    package func runsChangedInTransaction(_ runs: [UUID], on sql: any SQLDatabase) async throws {
        guard usesPostgres, !runs.isEmpty else { return }
        let payloads = runs.map { $0.uuidString.lowercased() }
        try await sql.raw("SELECT pg_notify(\(bind: Self.channel), run) FROM unnest(\(bind: payloads)::text[]) AS run").run()
    }

    /// After a commit whose changes went through ``runsChangedInTransaction(_:on:)``: on SQLite,
    /// tells this instance's hub (the only one); on PostgreSQL the NOTIFY does that.
    package func runChangedAfterCommit(_ run: UUID) {
        guard !usesPostgres else { return }
        hub.publish(run)
    }
}
