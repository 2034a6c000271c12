import Crypto
import Foundation

/// A run start's idempotency key, as the launcher sent it in `Idempotency-Key`
/// (draft-ietf-httpapi-idempotency-key-header), with the digest of what that start asked for.
///
/// A launcher that got no answer to a run start (its connection reset, its instance killed) sends
/// the same start again with the same key. The server then answers with the run the first start
/// made, instead of starting a second run on the device (§2.6, "Duplicate request"). A key is the
/// device's own: the same key from another device is another start. A key sent again with another
/// request (other apps) is refused with a 422 (§2.7), by ``decide(existingDigest:)``.
///
/// The server keeps a key as long as it keeps the run it started.
package struct RunStartKey: Sendable, Hashable {
    /// The key: the content of the field's sf-string (1 to ``maximumLength`` characters).
    package var key: String
    /// What the start asked for: a SHA-256 of its apps in the order asked, or of "every target app".
    package var digest: String

    /// The longest key accepted (a UUID is 36 characters).
    package static let maximumLength = 255

    /// - Parameters:
    ///   - key: the key the launcher sent.
    ///   - appIDs: the apps the start asked for; nil when it asked for every target app.
    package init(key: String, appIDs: [UUID]?) {
        self.key = key
        let request = appIDs.map { "apps=" + $0.map { $0.uuidString.lowercased() }.joined(separator: ",") } ?? "apps=*"
        digest = SHA256.hash(data: Data(request.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// What a start that found its key already used by a run of its device does.
    package enum Repeat: Sendable, Equatable {
        /// The same request again: answer with the run the key started.
        case answerWithExistingRun
        /// Another request under a used key: refuse it, nothing written (§2.7: 422).
        case refuse
    }

    /// What to do when the device already has a run started with this key, whose start asked for
    /// `existingDigest`.
    package func decide(existingDigest: String?) -> Repeat {
        existingDigest == digest ? .answerWithExistingRun : .refuse
    }

    /// The refusal of a key sent again with another request (draft §2.7).
    package static let reused = DomainError(.invalidField, code: "idempotency_key_reused",
                                            reason: "This Idempotency-Key already started a run on this device with other apps; send a new key for a new run.",
                                            field: "Idempotency-Key")
}
