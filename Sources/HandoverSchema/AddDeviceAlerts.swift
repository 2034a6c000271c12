import FluentKit
import SQLKit

/// Version 34: alerts about devices that need a person (overdue, not seen, in Lost Mode), one
/// open alert per device and cause (a partial unique index), each its own mail's outbox row
/// (issue 66).
struct AddDeviceAlerts: HandoverMigration {
    func prepare(on database: Database) async throws {
        try await database.schema("device_alerts")
            .id()
            .field("device_id", .uuid, .required)
            .field("cause", .string, .required)
            .field("device_name", .string, .required)
            .field("site", .string)
            .field("site_key", .string)
            .field("detail", .string, .required)
            .field("raised_at", .datetime, .required)
            .field("cleared_at", .datetime)
            .field("acknowledged_at", .datetime)
            .field("acknowledged_by", .string)
            // Its mail, leased as every outbox row is (DeliveryOutbox).
            .field("status", .string, .required)
            .field("attempts", .int, .required)
            .field("next_attempt_at", .datetime, .required)
            .field("last_status_code", .int)
            .field("last_error", .string)
            .field("mailed_to", .string)
            .field("version", .int, .required)
            .create()
        guard let sql = database as? SQLDatabase else { return }
        try await sql.raw("CREATE UNIQUE INDEX IF NOT EXISTS device_alerts_open ON device_alerts (device_id, cause) WHERE cleared_at IS NULL").run()
        try await sql.raw("CREATE INDEX IF NOT EXISTS device_alerts_mail_due ON device_alerts (next_attempt_at) WHERE status = 'pending'").run()
        try await sql.raw("CREATE INDEX IF NOT EXISTS device_alerts_by_raised ON device_alerts (raised_at)").run()
    }

    func revert(on database: Database) async throws {
        try await database.schema("device_alerts").delete()
    }
}
