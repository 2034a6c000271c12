import Fluent

/// Version 9: what belongs to a fleet device, so that its hand-over ends it all: the sessions
/// signed in on it (Native SSO or not), the phone enrolled from such a session (its pushes stop),
/// and the browser sessions that phone approved.
struct AddFleetDeviceBindings: AsyncMigration {
    func prepare(on database: Database) async throws {
        // One column per statement: SQLite adds one column per ALTER TABLE.
        try await database.schema(UserSession.schema).field("device_id", .uuid).update()
        try await database.schema(OutOfBandOperation.schema).field("fleet_device_id", .uuid).update()
        try await database.schema(EnrolledDevice.schema).field("fleet_device_id", .uuid).update()
    }

    func revert(on database: Database) async throws {
        try await database.schema(EnrolledDevice.schema).deleteField("fleet_device_id").update()
        try await database.schema(OutOfBandOperation.schema).deleteField("fleet_device_id").update()
        try await database.schema(UserSession.schema).deleteField("device_id").update()
    }
}
