/// A URL split into its RFC 3986 parts exactly as written: nothing decoded, nothing normalised.
///
/// Foundation's `URL(string:)` quietly repairs bad input (it encodes spaces, turns `%zz` into
/// `%25zz` and applies IDNA to hosts), so a check made on a Foundation `URL` may not be a check of
/// the text another app will read. `RawURL` refuses such input instead, with a ``LinkError``
/// that names the character and where it stands.
///
/// One exception: a host may hold non-ASCII letters, because a decoded callback can name a
/// Unicode host. ``HostName`` turns it into its ASCII (IDNA) form, and ``CallbackPolicy`` judges
/// that form.
public struct RawURL: Equatable, Hashable, Sendable {
    /// The scheme as written (`https`, `myapp`). Compare it with ``lowercasedScheme``.
    public var scheme: String
    /// The text before `@` in the authority, when there is one.
    public var userInfo: String?
    /// The host as written, `nil` when the URL has no authority (`mailto:x`). IPv6 literals keep
    /// their brackets.
    public var host: String?
    /// The text after the host's `:`, when there is one (it may be empty).
    public var port: String?
    /// The path, still percent-encoded.
    public var path: String
    /// The query without its `?`, still percent-encoded; `nil` when there is no `?`.
    public var query: String?
    /// The fragment without its `#`; `nil` when there is no `#`.
    public var fragment: String?

    /// The scheme in lower case, as schemes compare.
    public var lowercasedScheme: String { scheme.lowercased() }

    /// Splits `text`, refusing anything a URL may not contain.
    ///
    /// - Parameter text: the URL as written.
    /// - Parameter parameter: the name used in errors (`ulc-success`, `link`…).
    /// - Parameter blamingQueryItems: whether a `%` that is not followed by two hex digits inside
    ///   the value of a `name=value` item of the query or the fragment is blamed on that item's
    ///   (decoded) name rather than on `parameter`. Set it when the items are the parameters of the
    ///   link being read (`x-cancel=%zz` then names `x-cancel`); leave it off for a URL nested in
    ///   another, whose items are not the caller's parameters. It changes whom an error names,
    ///   never whether the text is read.
    public init(_ text: String, parameter: String, blamingQueryItems: Bool = false) throws(LinkError) {
        try RawURL.checkCharacters(text, parameter: parameter, blamingQueryItems: blamingQueryItems)
        var rest = Substring(text)

        // scheme ":"
        guard let colon = rest.firstIndex(where: { $0 == ":" || $0 == "/" || $0 == "?" || $0 == "#" }),
              rest[colon] == ":", colon != rest.startIndex else {
            throw LinkError(parameter: parameter, problem: .malformedURL,
                            detail: "'\(RawURL.excerpt(text))' has no scheme",
                            accepted: "an absolute URL such as https://example.com/path")
        }
        let scheme = rest[..<colon]
        guard let first = scheme.unicodeScalars.first, first.isASCIILetter,
              scheme.unicodeScalars.allSatisfy({ $0.isASCIILetter || $0.isASCIIDigit || "+-.".unicodeScalars.contains($0) }) else {
            throw LinkError(parameter: parameter, problem: .malformedURL,
                            detail: "the scheme '\(RawURL.excerpt(String(scheme)))' is not a valid scheme",
                            accepted: "a letter followed by letters, digits, '+', '-' or '.'")
        }
        self.scheme = String(scheme)
        rest = rest[rest.index(after: colon)...]

        // "//" authority
        if rest.hasPrefix("//") {
            rest = rest.dropFirst(2)
            let end = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
            var authority = rest[..<end]
            rest = rest[end...]
            if let at = authority.lastIndex(of: "@") {
                userInfo = String(authority[..<at])
                authority = authority[authority.index(after: at)...]
            }
            if authority.hasPrefix("[") {
                guard let close = authority.firstIndex(of: "]") else {
                    throw LinkError(parameter: parameter, problem: .malformedURL,
                                    detail: "the IPv6 host has no closing ']'",
                                    accepted: "a host name")
                }
                host = String(authority[...close])
                let after = authority[authority.index(after: close)...]
                if after.first == ":" {
                    port = String(after.dropFirst())
                } else if !after.isEmpty {
                    throw LinkError(parameter: parameter, problem: .malformedURL,
                                    detail: "text follows the IPv6 host", accepted: "a host name")
                }
            } else if let portColon = authority.lastIndex(of: ":") {
                host = String(authority[..<portColon])
                port = String(authority[authority.index(after: portColon)...])
            } else {
                host = String(authority)
            }
            if let port, !port.unicodeScalars.allSatisfy(\.isASCIIDigit) {
                throw LinkError(parameter: parameter, problem: .malformedURL,
                                detail: "the port '\(RawURL.excerpt(port))' is not a number",
                                accepted: "no port")
            }
        }

        // path, "?" query, "#" fragment
        let pathEnd = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) ?? rest.endIndex
        path = String(rest[..<pathEnd])
        rest = rest[pathEnd...]
        if rest.first == "?" {
            let queryEnd = rest.firstIndex(of: "#") ?? rest.endIndex
            query = String(rest[rest.index(after: rest.startIndex)..<queryEnd])
            rest = rest[queryEnd...]
        }
        if rest.first == "#" {
            fragment = String(rest.dropFirst())
        }
        if host == nil, path.hasPrefix("//") {
            throw LinkError(parameter: parameter, problem: .malformedURL,
                            detail: "the path begins with '//'", accepted: "an absolute URL")
        }
        if let userInfo, userInfo.unicodeScalars.contains(where: { !$0.isASCII }) {
            throw LinkError(parameter: parameter, problem: .invalidCharacter,
                            detail: "the user info holds non-ASCII text", accepted: "percent-encoded text")
        }
        if !path.unicodeScalars.allSatisfy(\.isASCII) || !(query?.unicodeScalars.allSatisfy(\.isASCII) ?? true)
            || !(fragment?.unicodeScalars.allSatisfy(\.isASCII) ?? true) || !self.scheme.unicodeScalars.allSatisfy(\.isASCII) {
            throw LinkError(parameter: parameter, problem: .invalidCharacter,
                            detail: "non-ASCII text outside the host",
                            accepted: "percent-encoded UTF-8, for example %C3%A9 for é")
        }
    }

    /// The URL put back together; equal to the text it was parsed from.
    public var text: String {
        var out = scheme + ":"
        if let host {
            out += "//"
            if let userInfo { out += userInfo + "@" }
            out += host
            if let port { out += ":" + port }
        }
        out += path
        if let query { out += "?" + query }
        if let fragment { out += "#" + fragment }
        return out
    }

    /// The query split at `&` into parameters, in order; empty when there is no query.
    public func queryParameters(parameter: String) throws(LinkError) -> [QueryParameter] {
        guard let query else { return [] }
        return try QueryParameter.parse(query: query, parameter: parameter)
    }

    /// The fragment split at `&` into `name=value` items, as ``queryParameters(parameter:)``
    /// splits the query; empty when there is no fragment. Some links carry their payload there
    /// (`#p=…`), which keeps it out of a web server's logs.
    public func fragmentParameters(parameter: String) throws(LinkError) -> [QueryParameter] {
        guard let fragment, !fragment.isEmpty else { return [] }
        return try QueryParameter.parse(query: fragment, parameter: parameter)
    }

    /// Rejects characters that no URL may hold unencoded, naming the first one.
    static func checkCharacters(_ text: String, parameter: String, blamingQueryItems: Bool = false) throws(LinkError) {
        let scalars = Array(text.unicodeScalars)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            // Made only for an error: text for each scalar read was most of the check's time.
            var position: String { "at offset \(index)" }
            switch scalar.value {
            case 0x00...0x1F, 0x7F...0x9F:
                throw LinkError(parameter: parameter, problem: .controlCharacter,
                                detail: "a control character U+\(String(scalar.value, radix: 16, uppercase: true).leftPadded(4)) \(position)",
                                accepted: "printable characters only; percent-encode data")
            case 0x5C:
                throw LinkError(parameter: parameter, problem: .backslash,
                                detail: "a backslash \(position)",
                                accepted: "'/' as the path separator, or %5C inside data")
            case 0x25:  // %
                guard index + 2 < scalars.count,
                      scalars[index + 1].isASCIIHexDigit, scalars[index + 2].isASCIIHexDigit else {
                    let blamed = blamingQueryItems ? itemName(holding: index, in: scalars) ?? parameter : parameter
                    throw LinkError(parameter: blamed, problem: .invalidPercentEncoding,
                                    detail: "'%' \(position) is not followed by two hex digits",
                                    accepted: "%XX with hex digits, or %25 for a literal '%'")
                }
                index += 3
                continue
            case 0x20, 0x22, 0x3C, 0x3E, 0x5E, 0x60, 0x7B, 0x7C, 0x7D:
                throw LinkError(parameter: parameter, problem: .invalidCharacter,
                                detail: "the character '\(Character(scalar))' \(position) must be percent-encoded",
                                accepted: "RFC 3986 characters; percent-encode others")
            default:
                if scalar.isASCII { break }
                // Non-ASCII: allowed here, refused later unless it stands in the host.
                if scalar.properties.generalCategory == .format || scalar.properties.isWhitespace {
                    throw LinkError(parameter: parameter, problem: .invalidCharacter,
                                    detail: "an invisible character U+\(String(scalar.value, radix: 16, uppercase: true).leftPadded(4)) \(position)",
                                    accepted: "visible characters only")
                }
            }
            index += 1
        }
    }

    /// The decoded name of the query or fragment item whose value holds the scalar at `offset`;
    /// `nil` when the scalar is outside the query and the fragment, in an item's name, or in an
    /// item whose name is empty or does not decode.
    private static func itemName(holding offset: Int, in scalars: [Unicode.Scalar]) -> String? {
        let hash = scalars.firstIndex(of: "#")
        let question = scalars[..<(hash ?? scalars.endIndex)].firstIndex(of: "?")
        let region: Range<Int>
        if let hash, offset > hash {
            region = (hash + 1)..<scalars.endIndex
        } else if let question, offset > question {
            region = (question + 1)..<(hash ?? scalars.endIndex)
        } else {
            return nil
        }
        let start = scalars[region.lowerBound..<offset].lastIndex(of: "&").map { $0 + 1 } ?? region.lowerBound
        guard let equals = scalars[start..<offset].firstIndex(of: "=") else { return nil }
        var name = String.UnicodeScalarView()
        name.append(contentsOf: scalars[start..<equals])
        guard let decoded = PercentEncoding.decode(String(name)), !decoded.isEmpty else { return nil }
        return decoded
    }

    /// Cuts long text for an error message.
    static func excerpt(_ text: String) -> String {
        text.count > 60 ? String(text.prefix(57)) + "..." : text
    }
}

extension Unicode.Scalar {
    var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
    var isASCIIHexDigit: Bool { isASCIIDigit || ("a"..."f").contains(self) || ("A"..."F").contains(self) }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
