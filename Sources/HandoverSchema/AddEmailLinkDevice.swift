import FluentKit

/// Version 10: a sign-in link asked for from an app on a fleet device remembers that device, so
/// the session it starts, in the app or in a browser, ends with the device's hand-over.
struct AddEmailLinkDevice: HandoverMigration {
    func prepare(on database: Database) async throws {
        try await database.schema("email_login_tokens").field("device_id", .uuid).update()
    }

    func revert(on database: Database) async throws {
        try await database.schema("email_login_tokens").deleteField("device_id").update()
    }
}
