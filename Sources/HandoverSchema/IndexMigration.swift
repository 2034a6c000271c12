import FluentKit
import SQLKit

/// A migration that only adds indexes: each `(name, "table (columns)")` is created if absent, and
/// dropped on revert. Plain SQL, the same on SQLite and PostgreSQL.
protocol IndexMigration: HandoverMigration {
    static var indexes: [(name: String, target: String)] { get }
}

extension IndexMigration {
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
