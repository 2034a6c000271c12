import Foundation
import LinkCallbacks

/// The bytes a signed ULC's `ulc-sig` covers (see docs/ulc-signed-requests.md).
///
/// ```
/// ULC-SIG-1\n<action>\n<success>\n<error>\n<timestamp>
/// ```
///
/// Each part is the URL text after parsing: the action is the link without its `ulc-*`
/// parameters, success and error are the percent-decoded values of `ulc-success` and
/// `ulc-error` (or `ulc-failure`), and the timestamp is `ulc-ts` in decimal. Lines are joined
/// with a single LF, with no trailing LF; the whole is UTF-8.
public enum SignedRequestCanonicalForm {
    /// The first line, which names the version of this form.
    public static let version = "ULC-SIG-1"

    /// The canonical bytes for a ULC's parts.
    public static func bytes(action: String, success: String, error: String, timestamp: Int64) -> Data {
        Data([version, action, success, error, String(timestamp)].joined(separator: "\n").utf8)
    }

    /// The canonical bytes for a ULC and a timestamp.
    public static func bytes(for ulc: UniversalLinkCallback, timestamp: Int64) -> Data {
        bytes(action: ulc.action.absoluteString, success: ulc.success.absoluteString,
              error: ulc.error.absoluteString, timestamp: timestamp)
    }
}
