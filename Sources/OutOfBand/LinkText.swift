import Foundation

/// A URL read as written, without Foundation's leniency: `scheme://authority/path?query#fragment`.
///
/// Internal. Foundation's `URL` accepts and rewrites inputs differently on Linux and Apple
/// platforms, so links from untrusted places (a QR code, a web page) are split here by rules
/// that are the same everywhere, and every refusal names what was wrong.
struct LinkText: Sendable, Equatable {
    var scheme: String
    var host: String
    var port: Int?
    var path: String
    var query: String?
    var fragment: String?

    /// The longest text read: a QR code holds at most 2,953 bytes, and a link with a sealed
    /// payload and three callback targets stays well under this.
    static let maximumLength = 16_384

    static let accepted = "https://<host>/<path>#p=<payload> (or ?p=), or <scheme>://x-callback-url/<action>?p=<payload>"

    init(_ text: String, field: String) throws(OutOfBandError) {
        func failure(_ detail: String, _ problem: OutOfBandError.Problem = .malformedLink) -> OutOfBandError {
            OutOfBandError(field: field, problem: problem, detail: detail, accepted: field == "link" ? Self.accepted : "an absolute URL")
        }
        let bytes = Array(text.utf8)
        guard bytes.count <= Self.maximumLength else {
            throw failure("it is \(bytes.count) bytes long, more than \(Self.maximumLength)", .tooLong)
        }
        guard !bytes.isEmpty else { throw failure("it is empty", .missing) }
        for (offset, byte) in bytes.enumerated() where !Self.allowed(byte) {
            let shown: String
            switch byte {
            case 0x20: shown = "a space"
            case ..<0x20, 0x7F: shown = "a control character"
            case 0x80...: shown = "a non-ASCII character"
            default: shown = "'\(Character(Unicode.Scalar(byte)))'"
            }
            throw failure("\(shown) at offset \(offset) is not allowed unencoded in a URL")
        }
        guard let colon = text.firstIndex(of: ":") else { throw failure("it has no scheme") }
        let scheme = String(text[..<colon])
        let letters = UInt8(ascii: "a")...UInt8(ascii: "z")
        let schemeBytes = Array(scheme.lowercased().utf8)
        guard let first = schemeBytes.first, letters.contains(first),
              schemeBytes.allSatisfy({ letters.contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || Array("+.-".utf8).contains($0) })
        else { throw failure("'\(OutOfBandError.excerpt(scheme))' is not a URL scheme") }
        var rest = text[text.index(after: colon)...]
        guard rest.hasPrefix("//") else { throw failure("there is no '//' after the scheme") }
        rest = rest.dropFirst(2)
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        rest = rest[authorityEnd...]
        guard !authority.contains("@") else {
            throw failure("it carries a user name or password before '@'")
        }
        var host = Substring(authority)
        var port: Int?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw failure("an IPv6 host has no closing ']'") }
            host = authority[...close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let value = Int(after.dropFirst()), (0...65535).contains(value) else {
                    throw failure("the port '\(OutOfBandError.excerpt(after))' is not a number from 0 to 65535")
                }
                port = value
            }
        } else if let portColon = authority.lastIndex(of: ":") {
            host = authority[..<portColon]
            let digits = authority[authority.index(after: portColon)...]
            guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let value = Int(digits), (0...65535).contains(value) else {
                throw failure("the port '\(OutOfBandError.excerpt(digits))' is not a number from 0 to 65535")
            }
            port = value
        }
        guard !host.isEmpty else { throw failure("it has no host") }
        self.scheme = scheme.lowercased()
        self.host = host.lowercased()
        self.port = port
        if let hash = rest.firstIndex(of: "#") {
            fragment = String(rest[rest.index(after: hash)...])
            rest = rest[..<hash]
        }
        if let question = rest.firstIndex(of: "?") {
            query = String(rest[rest.index(after: question)...])
            rest = rest[..<question]
        }
        path = String(rest)
    }

    /// RFC 3986's unreserved, reserved and `%` characters.
    private static func allowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("-._~:/?#[]@!$&'()*+,;=%".utf8).contains(byte)
        }
    }

    /// Whether the host is this machine: `localhost`, `127.x.x.x` or `[::1]`.
    var isLoopback: Bool {
        host == "localhost" || host == "[::1]" || host.hasPrefix("127.") && host.split(separator: ".").count == 4
    }

    /// `name=value` items of `text`, split on `&` and percent-decoded; empty items are skipped.
    static func parameters(_ text: String?, field: String) throws(OutOfBandError) -> [(name: String, value: String)] {
        guard let text, !text.isEmpty else { return [] }
        var items: [(String, String)] = []
        for item in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = try percentDecode(parts[0], field: field)
            let value = parts.count > 1 ? try percentDecode(parts[1], field: name) : ""
            items.append((name, value))
        }
        return items
    }

    /// Decodes `%XX` sequences; `+` stays `+`. Refuses a broken `%`, text that is not UTF-8 and
    /// decoded control characters.
    static func percentDecode(_ text: some StringProtocol, field: String) throws(OutOfBandError) -> String {
        guard text.contains("%") else { return String(text) }
        var bytes: [UInt8] = []
        let input = Array(text.utf8)
        var index = 0
        while index < input.count {
            if input[index] == UInt8(ascii: "%") {
                guard index + 2 < input.count, let high = hex(input[index + 1]), let low = hex(input[index + 2]) else {
                    throw OutOfBandError(field: field, problem: .malformedLink, detail: "a '%' is not followed by two hexadecimal digits",
                                         accepted: "percent-encoding such as %2F")
                }
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(input[index])
                index += 1
            }
        }
        // Decoding repairs bad UTF-8 with U+FFFD; comparing the bytes back refuses it instead
        // (String(validating:as:) would, but needs macOS 15 and iOS 18).
        let decoded = String(decoding: bytes, as: UTF8.self)
        guard Array(decoded.utf8) == bytes else {
            throw OutOfBandError(field: field, problem: .malformedLink, detail: "the percent-encoded bytes are not UTF-8",
                                 accepted: "percent-encoded UTF-8")
        }
        if decoded.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw OutOfBandError(field: field, problem: .malformedLink, detail: "it hides a control character in percent-encoding",
                                 accepted: "text without control characters")
        }
        return decoded
    }

    /// Percent-encodes everything but RFC 3986's unreserved characters.
    static func percentEncode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}

/// Checks of the URLs an envelope or link carries.
enum URLRules {
    /// A redeem URL: https, or http on a loopback host (development); no user info, no fragment.
    static func redeemURL(_ text: String, field: String = "redeemURL") throws(OutOfBandError) -> URL {
        let accepted = "an https URL (http only on localhost, 127.0.0.1 or [::1]) with no user info or fragment"
        let link: LinkText
        do { link = try LinkText(text, field: field) } catch {
            throw OutOfBandError(field: field, problem: .invalidValue, detail: error.detail, accepted: accepted)
        }
        guard link.scheme == "https" || link.scheme == "http" && link.isLoopback else {
            throw OutOfBandError(field: field, problem: .invalidValue,
                                 detail: "the scheme \(link.scheme) is not allowed for host \(OutOfBandError.excerpt(link.host))", accepted: accepted)
        }
        guard link.fragment == nil else {
            throw OutOfBandError(field: field, problem: .invalidValue, detail: "it has a fragment", accepted: accepted)
        }
        guard let url = URL(string: text) else {
            throw OutOfBandError(field: field, problem: .invalidValue, detail: "Foundation cannot read it as a URL", accepted: accepted)
        }
        return url
    }

    /// An x-callback target: any absolute `scheme://…` URL except script and data schemes.
    /// Whether the target is allowed is the app's policy, not this module's.
    static func callbackTarget(_ text: String, field: String) throws(OutOfBandError) -> URL {
        let accepted = "an absolute URL such as https://example.com/done or otherapp://x-callback-url/done"
        let link: LinkText
        do { link = try LinkText(text, field: field) } catch {
            throw OutOfBandError(field: field, problem: .invalidValue, detail: error.detail, accepted: accepted)
        }
        guard !["javascript", "data", "file", "vbscript", "blob", "about"].contains(link.scheme) else {
            throw OutOfBandError(field: field, problem: .invalidValue, detail: "the scheme \(link.scheme) is never a callback", accepted: accepted)
        }
        guard let url = URL(string: text) else {
            throw OutOfBandError(field: field, problem: .invalidValue, detail: "Foundation cannot read it as a URL", accepted: accepted)
        }
        return url
    }
}
