import FluentKit
import SQLKit

/// Version 36: people and groups provisioned from the organisation's directory by SCIM 2.0
/// (issue 67). A person's badge is kept twice, never in clear text: sealed (to answer a SCIM
/// `GET` with it) and as the keyed digest a badge tap is looked up by, the digest custody keeps.
/// A person the directory deletes stays as a row marked deleted (`deleted_at`, its `userName` free
/// again), so that their badge is refused from then on.
struct AddDirectory: HandoverMigration {
    func prepare(on database: Database) async throws {
        try await database.schema("directory_users")
            .id()
            .field("user_name", .string, .required)
            .field("user_name_key", .string, .required)
            .field("external_id", .string)
            .field("display_name", .string)
            .field("login", .string)
            .field("active", .bool, .required)
            .field("badge_digest", .string)
            .field("badge_sealed", .string)
            .field("document", .string, .required)
            .field("grants", .string, .required)
            .field("version", .int, .required)
            .field("created_at", .datetime, .required)
            .field("updated_at", .datetime, .required)
            .field("deprovisioned_at", .datetime)
            .field("deleted_at", .datetime)
            .unique(on: "user_name_key")
            .create()
        try await database.schema("directory_groups")
            .id()
            .field("display_name", .string, .required)
            .field("display_name_key", .string, .required)
            .field("external_id", .string)
            .field("document", .string, .required)
            .field("version", .int, .required)
            .field("created_at", .datetime, .required)
            .field("updated_at", .datetime, .required)
            .create()
        try await database.schema("directory_members")
            .field("group_id", .uuid, .required, .references("directory_groups", "id", onDelete: .cascade))
            .field("member_id", .uuid, .required)
            .field("member_type", .string, .required)
            .unique(on: "group_id", "member_id")
            .create()
        guard let sql = database as? any SQLDatabase else { return }
        try await sql.raw("CREATE INDEX directory_users_badge ON directory_users (badge_digest)").run()
        try await sql.raw("CREATE INDEX directory_users_login ON directory_users (login)").run()
        try await sql.raw("CREATE INDEX directory_users_external ON directory_users (external_id)").run()
        try await sql.raw("CREATE INDEX directory_groups_name ON directory_groups (display_name_key)").run()
        try await sql.raw("CREATE INDEX directory_members_member ON directory_members (member_id)").run()
    }

    func revert(on database: Database) async throws {
        try await database.schema("directory_members").delete()
        try await database.schema("directory_groups").delete()
        try await database.schema("directory_users").delete()
    }
}
