import FluentKit
import SQLKit

/// Version 26: Shared Signals (issue 43).
///
/// - `ssf_streams`: the event streams receivers made (SSF 1.0 §8.1.1), each owned by the OAuth
///   client that created it; a push stream's `Authorization` header value is sealed at rest.
/// - `ssf_stream_subjects`: subjects a receiver removed from (or added back to) a stream; streams
///   carry every subject by default (`default_subjects` "ALL").
/// - `ssf_events`: the one outbox of security events, a row per stream and event, written in the
///   transaction of the change it reports. Push leases and retries a row (``DeliveryOutbox``);
///   poll hands it out until it is acknowledged. Either way it is kept until acknowledged or it
///   is older than the server's event retention (`HANDOVER_SSF_EVENT_RETENTION`).
/// - `ssf_received`: every SET this server received as a receiver, by issuer and `jti`, so that a
///   repeated one does nothing.
/// - `oauth_client_tokens`: the bearer tokens of the client credentials grant (SHA-256 only).
struct AddSharedSignals: HandoverMigration {
    func prepare(on database: Database) async throws {
        try await database.schema("ssf_streams")
            .field("id", .string, .identifier(auto: false))
            .field("client_id", .string, .required)
            .field("delivery_method", .string, .required)
            .field("endpoint_url", .string)
            .field("authorization_header", .string)
            .field("events_requested", .string)
            .field("events_delivered", .string, .required)
            .field("description", .string)
            .field("status", .string, .required)
            .field("reason", .string)
            .field("last_verification_at", .datetime)
            .field("created_at", .datetime, .required)
            .field("updated_at", .datetime, .required)
            .create()
        try await database.schema("ssf_stream_subjects")
            .id()
            .field("stream_id", .string, .required)
            .field("subject", .string, .required)
            .field("removed", .bool, .required)
            .field("created_at", .datetime, .required)
            .unique(on: "stream_id", "subject")
            .create()
        try await database.schema("ssf_events")
            .id()
            .field("stream_id", .string, .required)
            .field("jti", .string, .required)
            .field("event_type", .string, .required)
            .field("payload", .string, .required)
            .field("status", .string, .required)
            .field("attempts", .int, .required)
            .field("next_attempt_at", .datetime, .required)
            .field("last_status_code", .int)
            .field("last_error", .string)
            .field("version", .int, .required)
            .field("created_at", .datetime, .required)
            .field("delivered_at", .datetime)
            .unique(on: "jti")
            .create()
        try await database.schema("ssf_received")
            .id()
            .field("issuer", .string, .required)
            .field("jti", .string, .required)
            .field("event_types", .string, .required)
            .field("outcome", .string, .required)
            .field("received_at", .datetime, .required)
            .unique(on: "issuer", "jti")
            .create()
        try await database.schema("oauth_client_tokens")
            .id()
            .field("token_hash", .string, .required)
            .field("client_id", .string, .required)
            .field("expires_at", .datetime, .required)
            .field("created_at", .datetime, .required)
            .unique(on: "token_hash")
            .create()
        guard let sql = database as? SQLDatabase else { return }
        try await sql.raw("CREATE INDEX IF NOT EXISTS ssf_streams_by_client ON ssf_streams (client_id)").run()
        try await sql.raw("CREATE INDEX IF NOT EXISTS ssf_events_owed ON ssf_events (stream_id, created_at) WHERE status = 'pending'").run()
        try await sql.raw("CREATE INDEX IF NOT EXISTS ssf_events_due ON ssf_events (next_attempt_at) WHERE status = 'pending'").run()
    }

    func revert(on database: Database) async throws {
        for table in ["oauth_client_tokens", "ssf_received", "ssf_events", "ssf_stream_subjects", "ssf_streams"] {
            try await database.schema(table).delete()
        }
    }
}
