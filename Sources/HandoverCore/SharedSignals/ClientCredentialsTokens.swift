import Foundation
import SQLKit

/// Bearer tokens of the client credentials grant (RFC 6749 §4.4): what a registered OAuth client
/// (RFC 7591) presents to the Shared Signals stream management and poll endpoints (RFC 6750).
/// Random, stored as SHA-256 only, valid for ``lifetime``.
package enum ClientCredentialsTokens {
    package static let prefix = "hcc_"
    package static let lifetime: TimeInterval = 3600

    /// A new token for `client`.
    package static func issue(client: String, on sql: any SQLDatabase, now: Date) async throws -> String {
        let token = prefix + BearerSecret.random()
        try await sql.raw("""
            INSERT INTO oauth_client_tokens (id, token_hash, client_id, expires_at, created_at)
            VALUES (\(bind: UUID()), \(bind: BearerSecret.digest(token)), \(bind: client), \(bind: now.addingTimeInterval(lifetime)), \(bind: now))
            """).run()
        // Expired ones go as new ones come: the table holds an hour of tokens.
        try await sql.raw("DELETE FROM oauth_client_tokens WHERE expires_at < \(bind: now.addingTimeInterval(-60))").run()
        return token
    }

    /// The client a live token belongs to, or nil (unknown, expired, or its client gone).
    package static func client(of token: String, on sql: any SQLDatabase, now: Date) async throws -> String? {
        guard token.hasPrefix(prefix), token.utf8.count <= 100, !token.containsControlCharacter else { return nil }
        return try await sql.raw("""
            SELECT t.client_id AS client_id FROM oauth_client_tokens t JOIN oauth_clients c ON c.client_id = t.client_id
            WHERE t.token_hash = \(bind: BearerSecret.digest(token)) AND t.expires_at > \(bind: now)
            """).first()?.decode(column: "client_id", as: String.self)
    }
}
