import FluentKit

/// Version 14: how each target app is logged out (`ulc`, `x-callback`, `backend-only`); the apps
/// registered before keep ULC.
struct AddLogoutMethods: HandoverMigration {
    func prepare(on database: Database) async throws {
        try await database.schema("apps").field("logout_method", .string).update()
    }

    func revert(on database: Database) async throws {
        try await database.schema("apps").deleteField("logout_method").update()
    }
}
