import FluentKit
import SQLKit

/// Version 12: what an MDM needs to act on a device: its serial number (unique, upper-cased)
/// and, optionally, the MDM's own id for it.
struct AddDeviceIdentifiers: HandoverMigration {
    func prepare(on database: Database) async throws {
        // One column per statement: SQLite adds one column per ALTER TABLE.
        try await database.schema("devices").field("serial_number", .string).update()
        try await database.schema("devices").field("mdm_device_id", .string).update()
        if let sql = database as? any SQLDatabase {
            try await sql.raw("CREATE UNIQUE INDEX devices_serial_number ON devices (serial_number)").run()
        }
    }

    func revert(on database: Database) async throws {
        if let sql = database as? any SQLDatabase { try await sql.raw("DROP INDEX devices_serial_number").run() }
        try await database.schema("devices").deleteField("mdm_device_id").update()
        try await database.schema("devices").deleteField("serial_number").update()
    }
}
