import FluentKit
import SQLKit

/// Version 28: the audit log's alarms (issue 63).
///
/// - `audit_alarms`: what the checkpoint pass or the self-check found wrong, and when and by whom
///   it was acknowledged (`handover audit acknowledge`). One open alarm per finding: a partial
///   unique index, so that the passes that repeat a finding, on any instance, record it once.
struct AddAuditAlarms: HandoverMigration {
    func prepare(on database: Database) async throws {
        try await database.schema("audit_alarms")
            .field("id", .uuid, .identifier(auto: false))
            .field("kind", .string, .required)
            .field("finding", .string, .required)
            .field("raised_at", .datetime, .required)
            .field("acknowledged_at", .datetime)
            .field("acknowledged_by", .string)
            .field("acknowledgement", .string)
            .create()
        guard let sql = database as? SQLDatabase else { return }
        try await sql.raw("CREATE UNIQUE INDEX IF NOT EXISTS audit_alarms_open ON audit_alarms (finding) WHERE acknowledged_at IS NULL").run()
    }

    func revert(on database: Database) async throws {
        try await database.schema("audit_alarms").delete()
    }
}
