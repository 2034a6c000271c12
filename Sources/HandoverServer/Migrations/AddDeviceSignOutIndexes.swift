import Fluent
import SQLKit

/// Version 17: indexes for the device sign-out every logout run starts with (its Native SSO
/// sessions, the phone enrolled for out-of-band operations). Without them each run start read
/// every session and every enrolled phone ever stored (`SCAN user_sessions`, `SCAN
/// enrolled_devices`), and revoked sessions stay stored.
struct AddDeviceSignOutIndexes: AsyncMigration {
    private static let indexes = [
        ("user_sessions_device", "user_sessions (device_id)"),
        ("enrolled_devices_fleet_device", "enrolled_devices (fleet_device_id)"),
    ]

    func prepare(on database: Database) async throws {
        guard let sql = database as? SQLDatabase else { return }
        for (name, target) in Self.indexes {
            try await sql.raw("CREATE INDEX IF NOT EXISTS \(unsafeRaw: name) ON \(unsafeRaw: target)").run()
        }
    }

    func revert(on database: Database) async throws {
        guard let sql = database as? SQLDatabase else { return }
        for (name, _) in Self.indexes {
            try await sql.raw("DROP INDEX IF EXISTS \(unsafeRaw: name)").run()
        }
    }
}
