import Foundation
import Logging
import PostgresNIO

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

    /// Outside a transaction: on PostgreSQL, a NOTIFY (``LogoutRunRows``' statement); on SQLite,
    /// this instance's hub.
    package func runChanged(_ run: UUID, on database: DatabaseHandle) async {
        guard usesPostgres else {
            hub.publish(run)
            return
        }
        do {
            try await LogoutRunRows.notify(Self.channel, payload: run.uuidString.lowercased(), on: database)
        } catch {
            // The change is committed; only live viewers miss it. Tell local ones directly.
            logger.warning("NOTIFY failed; live updates on other instances may lag", metadata: ["error": "\(error)"])
            hub.publish(run)
        }
    }

    /// Inside a transaction: on PostgreSQL, one NOTIFY per run (one statement for all, through
    /// `rows`, the transaction's store), which the database delivers at COMMIT and drops on
    /// ROLLBACK. On SQLite nothing; call ``runChangedAfterCommit(_:)``.
    package func runsChangedInTransaction(_ runs: [UUID], on rows: LogoutRunRows) async throws {
        guard usesPostgres, !runs.isEmpty else { return }
        let payloads = runs.map { $0.uuidString.lowercased() }
        try await rows.notify(Self.channel, payloads: payloads)
    }

    /// After a commit whose changes went through ``runsChangedInTransaction(_:on:)``: on SQLite,
    /// tells this instance's hub (the only one); on PostgreSQL the NOTIFY does that.
    package func runChangedAfterCommit(_ run: UUID) {
        guard !usesPostgres else { return }
        hub.publish(run)
    }
}
