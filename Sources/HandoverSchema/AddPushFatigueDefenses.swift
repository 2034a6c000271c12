import FluentKit

/// Version 7: typed sign-in codes with bounded tries, and "this was not me" (an operation's
/// report time, and the users whose out-of-band sign-in is locked).
struct AddPushFatigueDefenses: HandoverMigration {
    func prepare(on database: Database) async throws {
        // One column per statement: SQLite adds one column per ALTER TABLE.
        try await database.schema("oob_operations").field("code_attempts", .int).update()
        try await database.schema("oob_operations").field("reported_at", .datetime).update()
        try await database.schema("oob_locks")
            .field("user_handle", .string, .identifier(auto: false))
            .field("operation_id", .uuid, .required)
            .field("locked_at", .datetime, .required)
            .create()
    }

    func revert(on database: Database) async throws {
        try await database.schema("oob_locks").delete()
        try await database.schema("oob_operations").deleteField("reported_at").update()
        try await database.schema("oob_operations").deleteField("code_attempts").update()
    }
}
