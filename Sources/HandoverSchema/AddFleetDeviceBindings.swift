import FluentKit

/// Version 9: what belongs to a fleet device, so that its hand-over ends it all: the sessions
/// signed in on it (Native SSO or not), the phone enrolled from such a session (its pushes stop),
/// and the browser sessions that phone approved.
struct AddFleetDeviceBindings: HandoverMigration {
    func prepare(on database: Database) async throws {
        // One column per statement: SQLite adds one column per ALTER TABLE.
        try await database.schema("user_sessions").field("device_id", .uuid).update()
        try await database.schema("oob_operations").field("fleet_device_id", .uuid).update()
        try await database.schema("enrolled_devices").field("fleet_device_id", .uuid).update()
    }

    func revert(on database: Database) async throws {
        try await database.schema("enrolled_devices").deleteField("fleet_device_id").update()
        try await database.schema("oob_operations").deleteField("fleet_device_id").update()
        try await database.schema("user_sessions").deleteField("device_id").update()
    }
}
