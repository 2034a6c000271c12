import Fluent

/// Version 9: the fleet device a session was signed in on, so that the device's hand-over ends
/// it whether or not the app asked for Native SSO.
struct AddSessionDevice: AsyncMigration {
    func prepare(on database: Database) async throws {
        try await database.schema(UserSession.schema).field("device_id", .uuid).update()
    }

    func revert(on database: Database) async throws {
        try await database.schema(UserSession.schema).deleteField("device_id").update()
    }
}
