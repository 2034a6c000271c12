/// Why an out-of-band input was refused: which field, what was wrong with it, and what would have
/// been accepted.
///
/// Every parser in `OutOfBand` throws this one type (links, QR text, push dictionaries, payloads,
/// envelopes, redeem requests), so an app can log it, show it to a developer, or switch over
/// ``Problem``.
///
/// ```swift
/// do {
///     let link = try OperationLink(parsing: text)
/// } catch {
///     print(error)   // "p: the payload is missing. Accepted: p=<v1 payload> in the fragment or the query."
/// }
/// ```
public struct OutOfBandError: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
    /// The kind of problem, for code that reacts to it.
    public enum Problem: String, Sendable, CaseIterable {
        /// The text is not a URL this module reads (scheme, host, characters).
        case malformedLink = "malformed_link"
        /// A required field or parameter is absent.
        case missing
        /// A parameter that must appear once appears more than once.
        case duplicate
        /// A field has a value of the wrong form or outside its range.
        case invalidValue = "invalid_value"
        /// Base64url text that is padded, uses the wrong alphabet or has stray bits.
        case invalidBase64URL = "invalid_base64url"
        /// The payload's wire format (`v1.p.…` / `v1.e.…`) is not followed.
        case invalidPayload = "invalid_payload"
        /// The payload names a version this code does not read.
        case unsupportedVersion = "unsupported_version"
        /// The envelope JSON does not decode.
        case invalidEnvelope = "invalid_envelope"
        /// The payload is sealed to another device's key.
        case notForThisDevice = "not_for_this_device"
        /// The sealed payload does not open with this device's key (tampered or truncated).
        case decryptionFailed = "decryption_failed"
        /// The input is longer than this module reads.
        case tooLong = "too_long"
        /// A key in a device enrollment does not decode.
        case invalidKey = "invalid_key"
    }

    /// The field or parameter at fault: `p`, `x-success`, `challenge`, `op`, `link`…
    public var field: String
    /// The kind of problem.
    public var problem: Problem
    /// What was wrong, as a sentence fragment: "the scheme is ftp".
    public var detail: String
    /// What would have been accepted: "https, or a custom scheme with the host x-callback-url".
    public var accepted: String

    public init(field: String, problem: Problem, detail: String, accepted: String) {
        self.field = field
        self.problem = problem
        self.detail = detail
        self.accepted = accepted
    }

    /// `field: detail. Accepted: accepted.`
    public var description: String {
        "\(field): \(detail). Accepted: \(accepted)."
    }
}

extension OutOfBandError {
    /// A short, printable excerpt of untrusted text for error messages: no control characters,
    /// at most 40 characters.
    static func excerpt(_ text: some StringProtocol) -> String {
        let cleaned = text.unicodeScalars.map { scalar -> String in
            scalar.properties.generalCategory == .control ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
        }.joined()
        return cleaned.count > 40 ? String(cleaned.prefix(40)) + "…" : cleaned
    }
}
