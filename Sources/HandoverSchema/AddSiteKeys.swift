import FluentKit
import SQLKit

/// Version 32: a site is named as people write it ("Ward 7") and compared ignoring case
/// (``SiteName``; issue 66, item 3). Devices and custodies keep their site's key beside its name,
/// `site_key`, and every query by site compares the key; the lists by site use
/// `devices_by_site_key` in place of `devices_by_site`.
///
/// Every site stored before this version is ASCII letters, digits, `-`, `_` and `.` (the rule
/// then), so SQL's `LOWER`, which folds ASCII alike on SQLite and PostgreSQL, gives their keys
/// exactly.
struct AddSiteKeys: HandoverMigration {
    func prepare(on database: Database) async throws {
        try await database.schema("devices").field("site_key", .string).update()
        try await database.schema("custodies").field("site_key", .string).update()
        guard let sql = database as? SQLDatabase else { return }
        try await sql.raw("UPDATE devices SET site_key = LOWER(site) WHERE site IS NOT NULL").run()
        try await sql.raw("UPDATE custodies SET site_key = LOWER(site) WHERE site IS NOT NULL").run()
        try await sql.raw("DROP INDEX IF EXISTS devices_by_site").run()
        try await sql.raw("CREATE INDEX IF NOT EXISTS devices_by_site_key ON devices (site_key, name)").run()
    }

    func revert(on database: Database) async throws {
        if let sql = database as? SQLDatabase {
            try await sql.raw("DROP INDEX IF EXISTS devices_by_site_key").run()
            try await sql.raw("CREATE INDEX IF NOT EXISTS devices_by_site ON devices (site, name)").run()
        }
        try await database.schema("custodies").deleteField("site_key").update()
        try await database.schema("devices").deleteField("site_key").update()
    }
}
