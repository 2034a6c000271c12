import FluentKit
import SQLKit

/// Version 24: the audit log (issue 42).
///
/// - `audit_entries`: one row a leaf, `seq` from 0 with no gap; the leaf's exact bytes and its
///   RFC 9162 hash; the run, device and site it concerns, for the receipt route and exports.
/// - `audit_head`: the one counter row appends move (its lock orders two instances' appends).
/// - `audit_checkpoints`: each signed checkpoint (tree size, root, the signed note).
/// - `audit_keys`: the Ed25519 key that signs checkpoints, sealed like the other keys, and its
///   verifier key in the clear (what `handover audit export --key` writes).
/// - `siem_cursors`: how far each SIEM destination has received the log.
struct AddAuditLog: HandoverMigration {
    func prepare(on database: Database) async throws {
        try await database.schema("audit_entries")
            .field("seq", .int64, .identifier(auto: false))
            .field("type", .string, .required)
            .field("leaf", .data, .required)
            .field("leaf_hash", .data, .required)
            .field("run_id", .uuid)
            .field("device_id", .uuid)
            .field("site", .string)
            .field("created_at", .datetime, .required)
            .create()
        try await database.schema("audit_head")
            .field("id", .int64, .identifier(auto: false))
            .field("size", .int64, .required)
            .create()
        try await database.schema("audit_checkpoints")
            .field("size", .int64, .identifier(auto: false))
            .field("root_hash", .data, .required)
            .field("note", .string, .required)
            .field("created_at", .datetime, .required)
            .create()
        try await database.schema("audit_keys")
            .field("name", .string, .identifier(auto: false))
            .field("sealed_private_key", .string, .required)
            .field("verifier", .string, .required)
            .field("created_at", .datetime, .required)
            .create()
        try await database.schema("siem_cursors")
            .field("destination", .string, .identifier(auto: false))
            .field("delivered", .int64, .required)
            .field("checkpoints_delivered", .int64, .required)
            .field("attempts", .int, .required)
            .field("last_error", .string)
            .field("next_attempt_at", .datetime, .required)
            .field("delivered_at", .datetime)
            .create()
        guard let sql = database as? SQLDatabase else { return }
        try await sql.raw("INSERT INTO audit_head (id, size) VALUES (1, 0)").run()
        try await sql.raw("CREATE INDEX IF NOT EXISTS audit_receipts ON audit_entries (run_id) WHERE type = 'run.receipt'").run()
        try await sql.raw("CREATE INDEX IF NOT EXISTS audit_by_time ON audit_entries (created_at)").run()
    }

    func revert(on database: Database) async throws {
        for table in ["siem_cursors", "audit_keys", "audit_checkpoints", "audit_head", "audit_entries"] {
            try await database.schema(table).delete()
        }
    }
}
