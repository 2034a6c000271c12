import Crypto
import Foundation

/// Webhook signatures as the Standard Webhooks specification writes them
/// (<https://www.standardwebhooks.com>), so a receiver can check them with any of its libraries:
///
/// - `webhook-id`: the delivery's id, the same on every retry (for de-duplication);
/// - `webhook-timestamp`: Unix seconds when the attempt was signed (refuse old ones: replay);
/// - `webhook-signature`: `v1,<base64 HMAC-SHA256>` over `"<id>.<timestamp>.<body>"`, one per
///   secret in force, separated by spaces (two while a rotated secret is still honoured).
///
/// Secrets are `whsec_` and the base64 of 24 to 64 random bytes; the key is those bytes.
public enum WebhookSignature {
    public static let idHeader = "webhook-id"
    public static let timestampHeader = "webhook-timestamp"
    public static let signatureHeader = "webhook-signature"
    /// The prefix of a secret.
    public static let secretPrefix = "whsec_"
    /// How long a replaced secret keeps signing beside the new one.
    public static let rotationOverlap: TimeInterval = 24 * 60 * 60

    /// A fresh secret: `whsec_` and the base64 of 32 random bytes.
    public static func generateSecret() -> String {
        secretPrefix + SymmetricKey(size: .bits256).withUnsafeBytes { Data($0).base64EncodedString() }
    }

    /// Whether `secret` is `whsec_` and the base64 of 24 to 64 bytes.
    public static func isValidSecret(_ secret: String) -> Bool {
        guard secret.hasPrefix(secretPrefix), let bytes = Data(base64Encoded: String(secret.dropFirst(secretPrefix.count))) else { return false }
        return (24...64).contains(bytes.count)
    }

    /// The key of a secret: the bytes its base64 stands for. A secret stored by a version before
    /// Standard Webhooks (any text of 16 characters or more) signs with its UTF-8 bytes until it
    /// is rotated.
    package static func key(of secret: String) -> SymmetricKey? {
        if isValidSecret(secret), let bytes = Data(base64Encoded: String(secret.dropFirst(secretPrefix.count))) {
            return SymmetricKey(data: bytes)
        }
        return secret.isEmpty ? nil : SymmetricKey(data: Data(secret.utf8))
    }

    /// One signature, `v1,<base64>`, of a delivery under `secret`; `nil` for a malformed secret.
    public static func signature(id: String, timestamp: Int, body: Data, secret: String) -> String? {
        guard let key = key(of: secret) else { return nil }
        var message = Data("\(id).\(timestamp).".utf8)
        message.append(body)
        return "v1," + Data(HMAC<SHA256>.authenticationCode(for: message, using: key)).base64EncodedString()
    }

    /// The `webhook-signature` value for every secret in force, space-separated.
    public static func header(id: String, timestamp: Int, body: Data, secrets: [String]) -> String {
        secrets.compactMap { signature(id: id, timestamp: timestamp, body: body, secret: $0) }.joined(separator: " ")
    }

    /// Whether one of the signatures in `header` is that of the delivery under `secret`
    /// (compared in constant time), as a receiver checks it.
    public static func verify(id: String, timestamp: Int, body: Data, header: String, secret: String) -> Bool {
        guard let expected = signature(id: id, timestamp: timestamp, body: body, secret: secret) else { return false }
        return header.split(separator: " ").contains { CallbackNonce.constantTimeEqual(expected, String($0)) }
    }
}
