import Foundation
import Logging

/// Revocation as one event: when a key, a dashboard session or a device's key ends, every stream
/// opened with it ends, on every instance (``OpenStreams``).
///
/// On SQLite there is one instance, and the event goes straight to its streams. On PostgreSQL it
/// goes out as `NOTIFY handover_credential_revoked, '<payload>'` (``RevokedCredential/payload``),
/// and every instance, this one included, hears it on its `LISTEN` connection (``heard(_:)``). A
/// NOTIFY that fails still ends this instance's streams; the others find the credential gone at
/// their next check (``OpenStreams/recheckInterval``). Requests need no event: each reads its key
/// or session anew. The NOTIFY is ``RevocationStore``'s.
package final class CredentialRevocations: Sendable {
    package static let channel = "handover_credential_revoked"

    package let streams: OpenStreams
    private let usesPostgres: Bool
    private let logger: Logger

    package init(usesPostgres: Bool, logger: Logger, streams: OpenStreams = OpenStreams()) {
        self.usesPostgres = usesPostgres
        self.logger = logger
        self.streams = streams
    }

    /// Announces credentials that ended, after the commit that ended them.
    package func announce(_ credentials: [RevokedCredential], on database: DatabaseHandle) async {
        guard !credentials.isEmpty else { return }
        let store = RevocationStore(database)
        guard usesPostgres, store.speaksSQL else {
            streams.end(credentials)
            return
        }
        do {
            try await store.notify(credentials.map(\.payload), on: Self.channel)
        } catch {
            logger.warning("NOTIFY of a revocation failed; other instances end its streams at their next check",
                           metadata: ["error": "\(error)"])
            streams.end(credentials)
        }
    }

    /// A revocation heard from an instance (this one included) on PostgreSQL.
    package func heard(_ payload: String) {
        guard let credential = RevokedCredential(payload: payload) else { return }
        streams.end([credential])
    }
}
