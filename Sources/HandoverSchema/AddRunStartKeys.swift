import FluentKit
import SQLKit

/// Version 38: a run start's idempotency key (issue 64, the failover test). A launcher that lost
/// the answer to a run start (its instance killed, the connection reset) sends the same start again
/// with the same `Idempotency-Key`; the server answers with the run the first start made instead of
/// starting a second one.
///
/// - `start_key`: the key as the launcher sent it (NULL: started without one);
/// - `start_digest`: what the start asked for (its apps, or every target app), so that a key sent
///   again with another request is refused (422) rather than answered with a run it did not ask for;
/// - one unique index on `(device_id, start_key)`: a key is the device's own, and the run start's
///   `INSERT … ON CONFLICT DO NOTHING` finds a repeated one in the statement that writes the run.
///   Runs without a key never collide (NULLs are distinct in a unique index on both databases).
struct AddRunStartKeys: HandoverMigration {
    func prepare(on database: Database) async throws {
        guard let sql = database as? any SQLDatabase else { return }
        try await sql.raw("ALTER TABLE logout_runs ADD COLUMN start_key TEXT").run()
        try await sql.raw("ALTER TABLE logout_runs ADD COLUMN start_digest TEXT").run()
        try await sql.raw("CREATE UNIQUE INDEX logout_runs_device_start_key ON logout_runs (device_id, start_key)").run()
    }

    func revert(on database: Database) async throws {
        guard let sql = database as? any SQLDatabase else { return }
        try await sql.raw("DROP INDEX logout_runs_device_start_key").run()
        try await database.schema("logout_runs").deleteField("start_digest").update()
        try await database.schema("logout_runs").deleteField("start_key").update()
    }
}
