import FluentKit

/// Version 2: dashboard sessions and conformance-tester runs.
struct CreateDashboardAndTester: HandoverMigration {
    func prepare(on database: Database) async throws {
        try await database.schema("dashboard_sessions")
            .id()
            .field("token_hash", .string, .required)
            .field("csrf_token", .string, .required)
            .field("api_key_id", .uuid, .required)
            .field("created_at", .datetime, .required)
            .field("expires_at", .datetime, .required)
            .unique(on: "token_hash")
            .create()
        try await database.schema("tester_runs")
            .id()
            .field("action_url", .string, .required)
            .field("claiming_app_id", .string)
            .field("association_report", .string, .required)
            .field("declares_allowlist", .bool, .required)
            .field("simulated_behaviour", .string)
            .field("budget_seconds", .int, .required)
            .field("rounds", .string, .required)
            .field("status", .string, .required)
            .field("created_at", .datetime, .required)
            .field("version", .int, .required)
            .create()
    }

    func revert(on database: Database) async throws {
        try await database.schema("tester_runs").delete()
        try await database.schema("dashboard_sessions").delete()
    }
}
