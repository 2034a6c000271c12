import FluentKit

/// Version 20: people who sign in through the organisation's provider, their pending sign-ins,
/// the sign-in history, and dashboard sessions that belong to a person or a key (issue 39).
///
/// `dashboard_sessions` is dropped and created again: a session now carries its grants, its
/// person and its last request, and SQLite cannot relax `api_key_id`'s NOT NULL in place. Every
/// dashboard browser signs in again after the upgrade; API keys are untouched.
struct AddPeople: HandoverMigration {
    func prepare(on database: Database) async throws {
        try await database.schema("people")
            .id()
            .field("issuer", .string, .required)
            .field("subject", .string, .required)
            .field("name", .string)
            .field("email", .string)
            .field("grants", .string, .required)
            .field("first_seen_at", .datetime, .required)
            .field("last_sign_in_at", .datetime, .required)
            .unique(on: "issuer", "subject")
            .create()
        try await database.schema("admin_sign_in_attempts")
            .id()
            .field("state_hash", .string, .required)
            .field("nonce", .string, .required)
            .field("code_verifier", .string, .required)
            .field("created_at", .datetime, .required)
            .field("expires_at", .datetime, .required)
            .unique(on: "state_hash")
            .create()
        try await database.schema("admin_events")
            .id()
            .field("at", .datetime, .required)
            .field("kind", .string, .required)
            .field("person_id", .uuid)
            .field("who", .string, .required)
            .field("detail", .string, .required)
            .create()
        try await database.schema("dashboard_sessions").delete()
        try await database.schema("dashboard_sessions")
            .id()
            .field("token_hash", .string, .required)
            .field("csrf_token", .string, .required)
            .field("api_key_id", .uuid)
            .field("person_id", .uuid)
            .field("grants", .string, .required)
            .field("break_glass", .bool, .required)
            .field("provider_sid", .string)
            .field("id_token", .string)
            .field("created_at", .datetime, .required)
            .field("last_seen_at", .datetime, .required)
            .field("expires_at", .datetime, .required)
            .unique(on: "token_hash")
            .create()
    }

    func revert(on database: Database) async throws {
        try await database.schema("dashboard_sessions").delete()
        try await database.schema("dashboard_sessions")
            .id()
            .field("token_hash", .string, .required)
            .field("csrf_token", .string, .required)
            .field("api_key_id", .uuid, .required)
            .field("created_at", .datetime, .required)
            .field("expires_at", .datetime, .required)
            .unique(on: "token_hash")
            .create()
        try await database.schema("admin_events").delete()
        try await database.schema("admin_sign_in_attempts").delete()
        try await database.schema("people").delete()
    }
}
