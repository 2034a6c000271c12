import Crypto
import Foundation
import SessionTokens
import SQLKit
import TransparencyLog

/// The Ed25519 key that signs the audit log's checkpoints: made once, on first start, sealed at
/// rest with the server's encryption key like every other key, shared by every instance.
///
/// Its name is the log's origin at the time it was made (`<public host>/audit`), and stays the
/// checkpoints' origin for good: a checkpoint names one log, whatever the URL later becomes.
package enum AuditCheckpointKey {
    /// The key, made and stored when there is none yet.
    package static func load(origin: String, sealer: SecretSealer, on sql: any SQLDatabase, now: Date) async throws -> NoteSigningKey {
        if let key = try await stored(sealer: sealer, on: sql) { return key }
        let key = try NoteSigningKey(name: origin, privateKey: Curve25519.Signing.PrivateKey())
        try await sql.raw("""
            INSERT INTO audit_keys (name, sealed_private_key, verifier, created_at)
            VALUES (\(bind: origin), \(bind: try sealer.seal(key.privateKey.rawRepresentation)), \(bind: key.verifier.description),
                    \(bind: now)) ON CONFLICT DO NOTHING
            """).run()
        // Another instance may have made one first: the stored key wins.
        guard let stored = try await stored(sealer: sealer, on: sql) else { throw AuditLogError.noHead }
        return stored
    }

    /// The stored key, or nil before the first checkpoint (never made here: `handover audit
    /// acknowledge` signs with the log's own key or not at all).
    package static func stored(sealer: SecretSealer, on sql: any SQLDatabase) async throws -> NoteSigningKey? {
        guard let row = try await sql.raw("SELECT name, sealed_private_key FROM audit_keys ORDER BY created_at LIMIT 1").first() else {
            return nil
        }
        let raw = try sealer.open(try row.decode(column: "sealed_private_key", as: String.self))
        return try NoteSigningKey(name: try row.decode(column: "name", as: String.self),
                                  privateKey: try Curve25519.Signing.PrivateKey(rawRepresentation: raw))
    }

    /// The verifier key stored beside the sealed one, or nil before the first checkpoint.
    package static func verifier(on sql: any SQLDatabase) async throws -> String? {
        try await sql.raw("SELECT verifier FROM audit_keys ORDER BY created_at LIMIT 1").first()?.decode(column: "verifier", as: String.self)
    }

    /// The log's origin for a public URL: its host (and port), then `/audit`.
    package static func origin(publicURL: URL) -> String {
        let host = publicURL.host ?? "handover"
        return (publicURL.port.map { "\(host):\($0)" } ?? host) + "/audit"
    }
}
