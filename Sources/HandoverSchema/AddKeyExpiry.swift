import FluentKit

/// Version 22: API keys of people and services may expire, and show when they were last used
/// (issue 39).
struct AddKeyExpiry: HandoverMigration {
    func prepare(on database: Database) async throws {
        try await database.schema("api_keys").field("expires_at", .datetime).update()
        try await database.schema("api_keys").field("last_used_at", .datetime).update()
    }

    func revert(on database: Database) async throws {
        try await database.schema("api_keys").deleteField("last_used_at").update()
        try await database.schema("api_keys").deleteField("expires_at").update()
    }
}
