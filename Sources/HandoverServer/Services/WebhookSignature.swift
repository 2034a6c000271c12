import Crypto
import Foundation

/// The `Handover-Signature` header on every webhook POST: `t=<unix seconds>,v1=<hex HMAC-SHA256>`
/// over `"<t>.<body>"` with the webhook's secret. A receiver recomputes it, compares in constant
/// time, and refuses a timestamp more than a few minutes old.
public enum WebhookSignature {
    public static let headerName = "Handover-Signature"

    public static func header(body: Data, secret: String, timestamp: Int) -> String {
        "t=\(timestamp),v1=\(mac(body: body, secret: secret, timestamp: timestamp))"
    }

    /// Whether `header` is a valid signature of `body` under `secret`.
    public static func verify(header: String, body: Data, secret: String) -> Bool {
        var timestamp: Int?
        var signature: String?
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { continue }
            if pair[0] == "t" { timestamp = Int(pair[1]) }
            if pair[0] == "v1" { signature = pair[1] }
        }
        guard let timestamp, let signature else { return false }
        let expected = Array(mac(body: body, secret: secret, timestamp: timestamp).utf8)
        let given = Array(signature.utf8)
        guard expected.count == given.count else { return false }
        return zip(expected, given).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    static func mac(body: Data, secret: String, timestamp: Int) -> String {
        var message = Data("\(timestamp).".utf8)
        message.append(body)
        return HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: Data(secret.utf8)))
            .map { String(format: "%02x", $0) }.joined()
    }
}
