import Foundation
import SQLKit

/// The revocation area's statement: on PostgreSQL, the `NOTIFY` that carries credentials' ends to
/// every instance (``CredentialRevocations``).
package struct RevocationStore: Sendable {
    package let database: DatabaseHandle

    package init(_ database: DatabaseHandle) {
        self.database = database
    }

    /// Whether the database speaks SQL, as a NOTIFY needs.
    package var speaksSQL: Bool { database is any SQLDatabase }

    /// Sends each of `payloads` on `channel` (`pg_notify`), in one statement.
    package func notify(_ payloads: [String], on channel: String) async throws {
        let sql = try ServerDatabases.sql(database, code: "storage")
        try await sql.raw("SELECT pg_notify(\(bind: channel), payload) FROM unnest(\(bind: payloads)::text[]) AS payload")
            .run()
    }
}
