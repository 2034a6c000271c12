import Foundation

/// A DNS host name in its ASCII form, as a policy compares it.
///
/// Unicode labels are normalised (NFC, lower case, the ideographic full stops read as `.`) and
/// encoded with Punycode into `xn--` labels, so `аppa.com` written with a Cyrillic `а` becomes
/// `xn--ppa-5cd.com` and can never equal `appa.com`. ASCII labels must be letters, digits and
/// inner hyphens, 1–63 characters; `xn--` labels must decode. IP addresses are not host names.
public struct HostName: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// The lower-case ASCII form, with `xn--` labels for Unicode ones.
    public let ascii: String

    /// Reads a host as it stands in a URL, throwing a ``LinkError`` that names `parameter`.
    public init(_ text: String, parameter: String) throws(LinkError) {
        func invalid(_ detail: String) -> LinkError {
            LinkError(parameter: parameter, problem: .invalidHost, detail: detail,
                      accepted: "a DNS name such as app.example.com (letters, digits, hyphens; IDNA for other scripts)")
        }
        if text.isEmpty {
            throw LinkError(parameter: parameter, problem: .emptyHost, detail: "the host is empty",
                            accepted: "a DNS name such as app.example.com")
        }
        if HostName.isIPAddress(text) {
            throw LinkError(parameter: parameter, problem: .ipAddressHost,
                            detail: "the host '\(RawURL.excerpt(text))' is an IP address",
                            accepted: "a DNS name; universal links need a domain")
        }
        if text.contains("%") { throw invalid("the host '\(RawURL.excerpt(text))' is percent-encoded") }
        let normalized = text.precomposedStringWithCanonicalMapping
            .replacingOccurrences(of: "\u{3002}", with: ".")
            .replacingOccurrences(of: "\u{FF0E}", with: ".")
            .replacingOccurrences(of: "\u{FF61}", with: ".")
            .lowercased()
        if normalized.hasSuffix(".") { throw invalid("the host '\(RawURL.excerpt(text))' ends with a dot") }
        var labels: [String] = []
        for label in normalized.split(separator: ".", omittingEmptySubsequences: false) {
            if label.isEmpty { throw invalid("the host '\(RawURL.excerpt(text))' has an empty label") }
            let scalars = Array(label.unicodeScalars)
            var ascii: String
            if scalars.allSatisfy(\.isASCII) {
                ascii = String(label)
                if ascii.hasPrefix("xn--") {
                    guard let decoded = Punycode.decode(String(ascii.dropFirst(4))), !decoded.allSatisfy(\.isASCII),
                          decoded.allSatisfy(HostName.isAllowedUnicode),
                          Punycode.encode(decoded).map({ "xn--" + $0 }) == ascii else {
                        throw invalid("the label '\(RawURL.excerpt(ascii))' is not valid IDNA")
                    }
                }
            } else {
                guard let bad = scalars.first(where: { !HostName.isAllowedUnicode($0) }) else {
                    guard let encoded = Punycode.encode(scalars) else { throw invalid("the label cannot be encoded") }
                    ascii = "xn--" + encoded
                    labels.append(try HostName.checkLDH(ascii, invalid))
                    continue
                }
                throw invalid("the character U+\(String(bad.value, radix: 16, uppercase: true).leftPadded(4)) cannot stand in a host name")
            }
            labels.append(try HostName.checkLDH(ascii, invalid))
        }
        let joined = labels.joined(separator: ".")
        if joined.utf8.count > 253 { throw invalid("the host is longer than 253 characters") }
        ascii = joined
    }

    public var description: String { ascii }

    /// Whether the host is written as an IPv4 or IPv6 address, in any form a browser reads as one
    /// (`[::1]`, `127.0.0.1`, `0x7f.1`, `2130706433`).
    public static func isIPAddress(_ host: String) -> Bool {
        if host.hasPrefix("[") { return true }
        let trimmed = host.hasSuffix(".") ? String(host.dropLast()) : host
        guard let last = trimmed.split(separator: ".", omittingEmptySubsequences: false).last, !last.isEmpty else {
            return false
        }
        // WHATWG: a host whose last label is numeric is an IPv4 address.
        let lower = last.lowercased()
        if lower.unicodeScalars.allSatisfy(\.isASCIIDigit) { return true }
        if lower.hasPrefix("0x"), lower.dropFirst(2).unicodeScalars.allSatisfy(\.isASCIIHexDigit) { return true }
        return false
    }

    private static func checkLDH(_ label: String, _ invalid: (String) -> LinkError) throws(LinkError) -> String {
        guard label.utf8.count <= 63 else { throw invalid("the label '\(RawURL.excerpt(label))' is longer than 63 characters") }
        guard label.unicodeScalars.allSatisfy({ $0.isASCIILetter || $0.isASCIIDigit || $0 == "-" }) else {
            throw invalid("the label '\(RawURL.excerpt(label))' holds a character other than a letter, digit or hyphen")
        }
        guard !label.hasPrefix("-"), !label.hasSuffix("-") else {
            throw invalid("the label '\(RawURL.excerpt(label))' begins or ends with a hyphen")
        }
        if label.count >= 4, label.dropFirst(2).hasPrefix("--"), !label.hasPrefix("xn--") {
            throw invalid("the label '\(RawURL.excerpt(label))' has '--' in the third and fourth places, which IDNA reserves")
        }
        return label
    }

    /// Letters, marks and digits of any script, and the hyphen; never symbols, punctuation or space.
    private static func isAllowedUnicode(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return scalar.isASCIILetter || scalar.isASCIIDigit || scalar == "-" }
        switch scalar.properties.generalCategory {
        case .lowercaseLetter, .otherLetter, .modifierLetter, .nonspacingMark, .spacingMark, .decimalNumber:
            return true
        default:
            return false
        }
    }
}
