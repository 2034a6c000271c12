import Foundation

/// Text a stranger sent (a token's header field, a query parameter), as the audit log, the People
/// page and an error answer may repeat it: control characters escaped (`\u{1B}`), at most
/// `limit` bytes of UTF-8 kept, and past that its length and the start of its SHA-256, so that two
/// long values can still be told apart: `AAAA…AAAA… (153600 bytes, sha256 5f3c08a1e2b4d6c7)`.
///
/// The audit log can never be trimmed: no entry holds more than a few hundred bytes of what came
/// from outside, however much was sent.
package enum StrangerText {
    /// The bytes kept of one value, by default.
    package static let limit = 120

    /// `text`, its control characters escaped, within `limit` bytes of UTF-8 (then followed by
    /// its whole length and hash).
    package static func bounded(_ text: some StringProtocol, limit: Int = limit) -> String {
        let whole = String(text)
        if whole.utf8.count <= limit, !whole.containsControlCharacter { return whole }
        var kept = "", bytes = 0
        for scalar in whole.unicodeScalars {
            let piece = scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
                ? "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}" : String(scalar)
            guard bytes + piece.utf8.count <= limit else {
                return kept + "… (\(whole.utf8.count) bytes, sha256 \(BearerSecret.digest(whole).prefix(16)))"
            }
            kept += piece
            bytes += piece.utf8.count
        }
        return kept
    }
}
