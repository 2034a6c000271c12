import FluentKit
import SQLKit

/// Version 25: on SQLite, an audit append is one statement (``AuditTrail``): this trigger moves
/// the counter row (`audit_head`) with each entry inserted. PostgreSQL's appends move the counter
/// themselves, under its row lock, and need nothing here.
struct AddAuditAppendTrigger: HandoverMigration {
    func prepare(on database: Database) async throws {
        guard let sql = database as? SQLDatabase, sql.dialect.name == "sqlite" else { return }
        try await sql.raw("""
            CREATE TRIGGER IF NOT EXISTS audit_entries_head AFTER INSERT ON audit_entries
            BEGIN UPDATE audit_head SET size = size + 1 WHERE id = 1; END
            """).run()
    }

    func revert(on database: Database) async throws {
        guard let sql = database as? SQLDatabase, sql.dialect.name == "sqlite" else { return }
        try await sql.raw("DROP TRIGGER IF EXISTS audit_entries_head").run()
    }
}
