import FluentKit

/// Version 35: a person's or service's key may be for one site (issue 66): it opens only the
/// dashboard, with its role at that site.
struct AddKeySites: HandoverMigration {
    func prepare(on database: Database) async throws {
        try await database.schema("api_keys").field("site", .string).update()
    }

    func revert(on database: Database) async throws {
        try await database.schema("api_keys").deleteField("site").update()
    }
}
