import FluentKit
import SQLKit

/// Version 29: replays of other parties' tokens refused (issue 63).
///
/// - `token_replays`: the identity provider's logout tokens (Back-Channel Logout 1.0 §2.6) and
///   Global Token Revocation bearers this server acted on, by issuer and `jti` (unique), until
///   they expire; the session upkeep pass deletes the expired ones.
struct AddTokenReplayCache: HandoverMigration {
    func prepare(on database: Database) async throws {
        try await database.schema("token_replays")
            .field("issuer", .string, .required)
            .field("jti", .string, .required)
            .field("kind", .string, .required)
            .field("expires_at", .datetime, .required)
            .field("used_at", .datetime, .required)
            .unique(on: "issuer", "jti")
            .create()
        guard let sql = database as? SQLDatabase else { return }
        try await sql.raw("CREATE INDEX IF NOT EXISTS token_replays_by_expiry ON token_replays (expires_at)").run()
    }

    func revert(on database: Database) async throws {
        try await database.schema("token_replays").delete()
    }
}
