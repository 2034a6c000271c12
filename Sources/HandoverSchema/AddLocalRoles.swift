import FluentKit

/// Version 33: roles an admin grants a person on the dashboard's People page (`local_grants`),
/// added at sign-in to those the provider's role map gives (`provider_grants`, the last
/// sign-in's); `grants` stays what the person last signed in with, both together (issue 66).
struct AddLocalRoles: HandoverMigration {
    func prepare(on database: Database) async throws {
        try await database.schema("people").field("local_grants", .string).update()
        try await database.schema("people").field("provider_grants", .string).update()
    }

    func revert(on database: Database) async throws {
        try await database.schema("people").deleteField("provider_grants").update()
        try await database.schema("people").deleteField("local_grants").update()
    }
}
