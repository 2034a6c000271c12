import FluentKit
import Foundation
import SQLKit

/// The whole schema, version 1. Later changes come as further migrations, never edits here.
struct CreateSchema: HandoverMigration {
    func prepare(on database: Database) async throws {
        try await database.schema("api_keys")
            .id()
            .field("name", .string, .required)
            .field("scope", .string, .required)
            .field("key_hash", .string, .required)
            .field("key_prefix", .string, .required)
            .field("device_id", .uuid)
            .field("created_at", .datetime, .required)
            .field("revoked_at", .datetime)
            .unique(on: "key_hash")
            .create()
        try await database.schema("apps")
            .id()
            .field("name", .string, .required)
            .field("role", .string, .required)
            .field("app_ids", .array(of: .string), .required)
            .field("logout_action", .string)
            .field("paths", .array(of: .string), .required)
            .field("allowed_callback_hosts", .array(of: .string), .required)
            .field("deadline_seconds", .int, .required)
            .field("max_reissues", .int, .required)
            .field("android_package", .string)
            .field("android_fingerprints", .array(of: .string), .required)
            .field("created_at", .datetime, .required)
            .unique(on: "name")
            .create()
        try await database.schema("devices")
            .id()
            .field("name", .string, .required)
            .field("status", .string, .required)
            .field("created_at", .datetime, .required)
            .field("last_run_id", .uuid)
            .create()
        try await database.schema("webhooks")
            .id()
            .field("url", .string, .required)
            .field("secret", .string, .required)
            .field("events", .array(of: .string), .required)
            .field("created_at", .datetime, .required)
            .create()
        try await database.schema("webhook_deliveries")
            .id()
            .field("webhook_id", .uuid, .required, .references("webhooks", .id, onDelete: .cascade))
            .field("event", .string, .required)
            .field("payload", .string, .required)
            .field("status", .string, .required)
            .field("attempts", .int, .required)
            .field("next_attempt_at", .datetime, .required)
            .field("last_status_code", .int)
            .field("last_error", .string)
            .field("created_at", .datetime, .required)
            .field("delivered_at", .datetime)
            .field("version", .int, .required)
            .create()
        try await database.schema("logout_runs")
            .id()
            .field("device_id", .uuid, .required, .references("devices", .id, onDelete: .cascade))
            .field("status", .string, .required)
            .field("created_at", .datetime, .required)
            .field("finished_at", .datetime)
            .create()
        try await database.schema("logout_items")
            .id()
            .field("run_id", .uuid, .required, .references("logout_runs", .id, onDelete: .cascade))
            .field("app_id", .uuid, .required)
            .field("app_name", .string, .required)
            .field("position", .int, .required)
            .field("status", .string, .required)
            .field("attempts", .int, .required)
            .field("deadline_at", .datetime, .required)
            .field("issued_at", .datetime, .required)
            .field("finished_at", .datetime)
            .field("reported_by", .string)
            .field("version", .int, .required)
            .create()
        try await database.schema("server_settings")
            .field("key", .string, .identifier(auto: false))
            .field("value", .string, .required)
            .create()
    }

    func revert(on database: Database) async throws {
        for schema in ["server_settings", "logout_items", "logout_runs", "webhook_deliveries", "webhooks",
                       "devices", "apps", "api_keys"] {
            try await database.schema(schema).delete()
        }
    }
}

/// Indexes for the scheduler's and the dispatcher's scans, and for per-run lookups.
struct CreateIndexes: IndexMigration {
    static let indexes: [(name: String, target: String)] = [
        ("logout_items_due", "logout_items (status, deadline_at)"),
        ("logout_items_run", "logout_items (run_id)"),
        ("webhook_deliveries_due", "webhook_deliveries (status, next_attempt_at)"),
        ("webhook_deliveries_webhook", "webhook_deliveries (webhook_id)"),
        ("logout_runs_device", "logout_runs (device_id)"),
    ]
}
