import FluentKit

/// Version 18: how each item of a run is logged out, as its app was registered when the run
/// started (`ulc`, `x-callback`, `backend-only`). A run keeps the methods it started with: an app
/// switched to backend-only during a run does not see its item succeed without a callback.
/// Items written before have none, and are read with their app's method.
struct AddItemLogoutMethods: HandoverMigration {
    func prepare(on database: Database) async throws {
        try await database.schema("logout_items").field("logout_method", .string).update()
    }

    func revert(on database: Database) async throws {
        try await database.schema("logout_items").deleteField("logout_method").update()
    }
}
