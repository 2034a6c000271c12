import FluentKit

/// Version 6: a webhook's previous secret, which keeps signing beside the new one for a day
/// after a rotation (Standard Webhooks' several signatures).
struct AddWebhookSecretRotation: HandoverMigration {
    func prepare(on database: Database) async throws {
        // One column per statement: SQLite adds one column per ALTER TABLE.
        try await database.schema("webhooks").field("previous_secret", .string).update()
        try await database.schema("webhooks").field("previous_secret_expires_at", .datetime).update()
    }

    func revert(on database: Database) async throws {
        try await database.schema("webhooks").deleteField("previous_secret_expires_at").update()
        try await database.schema("webhooks").deleteField("previous_secret").update()
    }
}
