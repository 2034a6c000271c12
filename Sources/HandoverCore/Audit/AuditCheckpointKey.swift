import Foundation

/// The Ed25519 key that signs the audit log's checkpoints: made once, on first start, sealed at
/// rest with the server's encryption key like every other key, shared by every instance.
///
/// Its name is the log's origin at the time it was made (`<public host>/audit`), and stays the
/// checkpoints' origin for good: a checkpoint names one log, whatever the URL later becomes.
/// Reading and writing it (``load(origin:sealer:on:now:)``, ``stored(sealer:on:)``,
/// ``verifier(on:)``) are the store's statements (``AuditStore``).
package enum AuditCheckpointKey {
    /// The log's origin for a public URL: its host (and port), then `/audit`.
    package static func origin(publicURL: URL) -> String {
        let host = publicURL.host ?? "handover"
        return (publicURL.port.map { "\(host):\($0)" } ?? host) + "/audit"
    }
}
