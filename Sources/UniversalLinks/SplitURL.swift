import Foundation

/// An absolute URL split into its parts exactly as written, with nothing decoded or rewritten:
/// the matcher's own split, over byte ranges.
///
/// Matching must see the path, query and fragment as the link carries them (`%C3%A9` is not
/// `%c3%a9`), which Foundation's `URL` does not promise, so the split is done here by hand. It
/// is lenient where `LinkCallbacks.SplitURL` (the one public URL-as-written type, which validates a
/// link's every character) is strict: iOS decides any absolute URL it is handed.
struct SplitURL: Sendable, Equatable {
    /// The URL's UTF-8 bytes.
    let bytes: [UInt8]
    let schemeRange: Range<Int>
    let hostRange: Range<Int>
    let portRange: Range<Int>?
    let pathRange: Range<Int>
    let queryRange: Range<Int>?
    let fragmentRange: Range<Int>?

    /// The scheme in lower case (`https`).
    var scheme: String { String(decoding: bytes[schemeRange], as: UTF8.self).lowercased() }
    /// The host as written, in lower case, without user info, port or IPv6 brackets.
    var host: String { String(decoding: bytes[hostRange], as: UTF8.self).lowercased() }
    /// The port, when one is written.
    var port: Int? { portRange.flatMap { Int(String(decoding: bytes[$0], as: UTF8.self)) } }
    /// The path as written; `/` when the URL has none.
    var path: String { pathRange.isEmpty ? "/" : String(decoding: bytes[pathRange], as: UTF8.self) }
    /// The query as written, without `?`; nil when there is no `?`.
    var query: String? { queryRange.map { String(decoding: bytes[$0], as: UTF8.self) } }
    /// The fragment as written, without `#`; nil when there is no `#`.
    var fragment: String? { fragmentRange.map { String(decoding: bytes[$0], as: UTF8.self) } }

    /// Splits `string`, or returns nil when it is not an absolute `scheme://host...` URL.
    init?(_ string: String) {
        let bytes = Array(string.utf8)
        guard let parts = bytes.withUnsafeBufferPointer({ URLParts($0) }) else { return nil }
        self.bytes = bytes
        schemeRange = parts.schemeRange
        hostRange = parts.hostRange
        portRange = parts.portRange
        pathRange = parts.pathRange
        queryRange = parts.queryRange
        fragmentRange = parts.fragmentRange
    }

    /// The ranges, for matching over `bytes`.
    var parts: URLParts {
        URLParts(schemeRange: schemeRange, hostRange: hostRange, portRange: portRange, pathRange: pathRange, queryRange: queryRange, fragmentRange: fragmentRange)
    }

    /// Whether the URL's host (and port, when `domain` names one) is `domain`, compared without
    /// regard to case and to a trailing dot.
    func isOnDomain(_ domain: String) -> Bool {
        let target = DomainName(domain)
        return isOnDomain(target)
    }

    func isOnDomain(_ target: DomainName) -> Bool {
        var hostBytes = Array(bytes[hostRange])
        if hostBytes.last == UInt8(ascii: ".") { hostBytes.removeLast() }
        guard hostBytes.count == target.host.count else { return false }
        for (a, b) in zip(hostBytes, target.host) where (a >= 0x41 && a <= 0x5A ? a | 0x20 : a) != b { return false }
        let defaultPort = scheme == "http" ? 80 : 443
        return (port ?? defaultPort) == (target.port ?? defaultPort)
    }

    static func isLetter(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }
    static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
}

/// A domain that an association file is served from: lower-case host bytes and an optional port.
struct DomainName: Sendable {
    let host: [UInt8]
    let port: Int?

    init(_ domain: String) {
        var text = Substring(domain.lowercased())
        if let scheme = text.range(of: "://") { text = text[scheme.upperBound...] }
        if let slash = text.firstIndex(of: "/") { text = text[..<slash] }
        var port: Int?
        if let colon = text.lastIndex(of: ":"), !text.hasPrefix("[") || text[..<colon].hasSuffix("]") {
            port = Int(text[text.index(after: colon)...])
            text = text[..<colon]
        }
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        if text.hasSuffix(".") { text = text.dropLast() }
        host = Array(text.utf8)
        self.port = port
    }
}

/// Where the parts of an absolute URL lie in its UTF-8 bytes: the split behind `SplitURL`, done over
/// a buffer so `AssociationMatcher` can split a `String`'s own storage without copying it.
struct URLParts: Sendable {
    let schemeRange: Range<Int>
    let hostRange: Range<Int>
    let portRange: Range<Int>?
    let pathRange: Range<Int>
    let queryRange: Range<Int>?
    let fragmentRange: Range<Int>?

    init(schemeRange: Range<Int>, hostRange: Range<Int>, portRange: Range<Int>?, pathRange: Range<Int>, queryRange: Range<Int>?, fragmentRange: Range<Int>?) {
        self.schemeRange = schemeRange
        self.hostRange = hostRange
        self.portRange = portRange
        self.pathRange = pathRange
        self.queryRange = queryRange
        self.fragmentRange = fragmentRange
    }

    /// Splits `bytes`, or returns nil when they are not an absolute `scheme://host...` URL.
    init?(_ bytes: UnsafeBufferPointer<UInt8>) {
        // scheme ":" "//"
        guard let first = bytes.first, SplitURL.isLetter(first) else { return nil }
        var i = 1
        while i < bytes.count, SplitURL.isLetter(bytes[i]) || SplitURL.isDigit(bytes[i]) || bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: ".") {
            i += 1
        }
        guard i + 2 < bytes.count, bytes[i] == UInt8(ascii: ":"), bytes[i + 1] == UInt8(ascii: "/"), bytes[i + 2] == UInt8(ascii: "/") else { return nil }
        schemeRange = 0..<i
        let authorityStart = i + 3
        var authorityEnd = authorityStart
        while authorityEnd < bytes.count, bytes[authorityEnd] != UInt8(ascii: "/"), bytes[authorityEnd] != UInt8(ascii: "?"), bytes[authorityEnd] != UInt8(ascii: "#") {
            authorityEnd += 1
        }
        // Drop user info: everything up to the last "@".
        var hostStart = authorityStart
        if let at = bytes[authorityStart..<authorityEnd].lastIndex(of: UInt8(ascii: "@")) { hostStart = at + 1 }
        var hostEnd = authorityEnd
        var port: Range<Int>?
        if hostStart < authorityEnd, bytes[hostStart] == UInt8(ascii: "[") {
            guard let close = bytes[hostStart..<authorityEnd].firstIndex(of: UInt8(ascii: "]")) else { return nil }
            hostRange = (hostStart + 1)..<close
            if close + 1 < authorityEnd {
                guard bytes[close + 1] == UInt8(ascii: ":") else { return nil }
                port = (close + 2)..<authorityEnd
            }
        } else {
            if let colon = bytes[hostStart..<authorityEnd].firstIndex(of: UInt8(ascii: ":")) {
                hostEnd = colon
                port = (colon + 1)..<authorityEnd
            }
            hostRange = hostStart..<hostEnd
        }
        guard !hostRange.isEmpty else { return nil }
        if let port, !port.isEmpty {
            guard port.count <= 5, bytes[port].allSatisfy(SplitURL.isDigit) else { return nil }
            portRange = port
        } else {
            portRange = nil
        }
        var cursor = authorityEnd
        var pathEnd = cursor
        while pathEnd < bytes.count, bytes[pathEnd] != UInt8(ascii: "?"), bytes[pathEnd] != UInt8(ascii: "#") { pathEnd += 1 }
        pathRange = cursor..<pathEnd
        cursor = pathEnd
        if cursor < bytes.count, bytes[cursor] == UInt8(ascii: "?") {
            var queryEnd = cursor + 1
            while queryEnd < bytes.count, bytes[queryEnd] != UInt8(ascii: "#") { queryEnd += 1 }
            queryRange = (cursor + 1)..<queryEnd
            cursor = queryEnd
        } else {
            queryRange = nil
        }
        fragmentRange = cursor < bytes.count ? (cursor + 1)..<bytes.count : nil
    }


    /// Whether the host (and port, when `target` names one) is `target`, exactly as
    /// `SplitURL.isOnDomain` decides it, for an `http` (`isHTTP`) or `https` URL.
    func isOnDomain(_ target: DomainName, bytes: UnsafeBufferPointer<UInt8>, isHTTP: Bool) -> Bool {
        var hostEnd = hostRange.upperBound
        if bytes[hostEnd - 1] == UInt8(ascii: ".") { hostEnd -= 1 }
        guard hostEnd - hostRange.lowerBound == target.host.count else { return false }
        var k = 0
        for i in hostRange.lowerBound..<hostEnd {
            let a = bytes[i]
            if (a >= 0x41 && a <= 0x5A ? a | 0x20 : a) != target.host[k] { return false }
            k += 1
        }
        let defaultPort = isHTTP ? 80 : 443
        var port = defaultPort
        if let portRange {
            // One to five digits, checked by the split.
            port = 0
            for i in portRange { port = port * 10 + Int(bytes[i] - 0x30) }
        }
        return port == (target.port ?? defaultPort)
    }
}
