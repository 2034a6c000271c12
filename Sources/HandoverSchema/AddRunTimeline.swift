import FluentKit
import SQLKit

/// Version 16: what a run's timeline needs that the items do not keep. Each reissue of an app's
/// link (its attempt, the deadline it missed, the new deadline), written in the transaction that
/// reissues; and the run a webhook delivery reports, so a run's page lists its webhooks.
struct AddRunTimeline: HandoverMigration {
    func prepare(on database: Database) async throws {
        try await database.schema("logout_item_reissues")
            .id()
            .field("run_id", .uuid, .required)
            .field("item_id", .uuid, .required)
            .field("attempt", .int, .required)
            .field("missed_deadline_at", .datetime, .required)
            .field("issued_at", .datetime, .required)
            .field("deadline_at", .datetime, .required)
            .create()
        try await database.schema("webhook_deliveries").field("run_id", .uuid).update()
        if let sql = database as? any SQLDatabase {
            try await sql.raw("CREATE INDEX logout_item_reissues_by_run ON logout_item_reissues (run_id, issued_at)").run()
            try await sql.raw("CREATE INDEX webhook_deliveries_by_run ON webhook_deliveries (run_id)").run()
        }
    }

    func revert(on database: Database) async throws {
        if let sql = database as? any SQLDatabase {
            try await sql.raw("DROP INDEX IF EXISTS webhook_deliveries_by_run").run()
        }
        try await database.schema("webhook_deliveries").deleteField("run_id").update()
        try await database.schema("logout_item_reissues").delete()
    }
}
