import FluentKit
import SQLKit

/// Version 21: a device belongs to one site (a ward, a hospital), indexed for the lists and
/// counts of people whose role holds at named sites (issue 39).
struct AddDeviceSites: HandoverMigration {
    func prepare(on database: Database) async throws {
        try await database.schema("devices").field("site", .string).update()
        guard let sql = database as? SQLDatabase else { return }
        try await sql.raw("CREATE INDEX IF NOT EXISTS devices_by_site ON devices (site, name)").run()
    }

    func revert(on database: Database) async throws {
        if let sql = database as? SQLDatabase { try await sql.raw("DROP INDEX IF EXISTS devices_by_site").run() }
        try await database.schema("devices").deleteField("site").update()
    }
}
