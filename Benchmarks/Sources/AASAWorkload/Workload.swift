import Foundation
import UniversalLinks

/// A 50-component file with mixed patterns, and a URL mix that exercises early, late and no matches.
public enum Workload {
    public static let appID = "ABCDE12345.com.example.app"
    public static let domain = "example.com"

    public static let componentsJSON: [String] = {
        var list: [String] = []
        list.append(#"{"/":"/admin/*","exclude":true}"#)
        list.append(#"{"/":"/ulc/web/*","exclude":true}"#)
        for i in 0..<20 { list.append(#"{"/":"/section\#(i)/*"}"#) }
        for i in 0..<8 { list.append(#"{"/":"/item\#(i)/?*/detail"}"#) }
        for i in 0..<6 { list.append(#"{"/":"/search\#(i)","?":{"q":"?*"}}"#) }
        for i in 0..<4 { list.append(#"{"/":"/Promo\#(i)/*","caseSensitive":false}"#) }
        for i in 0..<4 { list.append(##"{"/":"/p\##(i)/*","#":"top"}"##) }
        for i in 0..<3 { list.append(#"{"/":"/$(lang)/shop\#(i)/*"}"#) }
        list.append(#"{"/":"/ulc/cb/*/success","?":"n=?*"}"#)
        list.append(#"{"/":"/ulc/*"}"#)
        list.append(#"{"/":"/help"}"#)
        return list
    }()

    public static let fileText = #"{"applinks":{"details":[{"appIDs":["\#(appID)"],"components":[\#(componentsJSON.joined(separator: ","))]}]}}"#

    public static let urls: [String] = [
        "https://example.com/admin/users",
        "https://example.com/section3/a/b",
        "https://example.com/section19",
        "https://example.com/item5/42/detail",
        "https://example.com/search2?q=shoes",
        "https://example.com/PROMO1/x",
        "https://example.com/p2/page#top",
        "https://example.com/en/shop1/cart",
        "https://example.com/ulc/cb/run1/app2/success?n=abc123",
        "https://example.com/ulc/logout",
        "https://example.com/help/",
        "https://example.com/nothing/here",
        "https://example.com/",
        "https://other.example/section1/x",
        "https://example.com/search5?x=1",
        "https://example.com/item7/detail",
    ]

    public static func makeMatcher() -> AssociationMatcher? {
        guard let file = try? AssociationFileParser.parse(text: fileText) else { return nil }
        return AssociationMatcher(file: file, domain: domain)
    }
}

/// The baseline: each component's patterns translated to NSRegularExpression, tried in order.
public struct RegexBaseline {
    struct Rule {
        var path: NSRegularExpression?
        var query: NSRegularExpression?
        var items: [(String, NSRegularExpression)]
        var fragment: NSRegularExpression?
        var exclude: Bool
    }
    let rules: [Rule]

    public init?() {
        guard let file = try? AssociationFileParser.parse(text: Workload.fileText),
              let components = file.appLinks?.details.first?.components else { return nil }
        func regex(_ pattern: String, caseSensitive: Bool, path: Bool) -> NSRegularExpression? {
            var body = ""
            var rest = Substring(path && !pattern.hasPrefix("/") ? "/" + pattern : pattern)
            let slashStar = path && rest.hasSuffix("/*")
            if slashStar { rest = rest.dropLast(2) }
            while let c = rest.first {
                if rest.hasPrefix("$(lang)") {
                    body += "(?:" + ISOCodes.languages.joined(separator: "|") + ")"
                    rest = rest.dropFirst(7)
                    continue
                }
                switch c {
                case "*": body += ".*"
                case "?": body += "."
                default: body += NSRegularExpression.escapedPattern(for: String(c))
                }
                rest = rest.dropFirst()
            }
            if path {
                if slashStar { body += "(?:/.*)?" }
                body += "/?"
            }
            return try? NSRegularExpression(pattern: "^" + body + "$", options: caseSensitive ? [] : [.caseInsensitive])
        }
        rules = components.map { c in
            let cs = c.options.caseSensitive ?? true
            var query: NSRegularExpression?
            var items: [(String, NSRegularExpression)] = []
            switch c.query {
            case .whole(let q)?: query = regex(q, caseSensitive: cs, path: false)
            case .items(let list)?: items = list.compactMap { item in regex(item.pattern ?? "*", caseSensitive: cs, path: false).map { (item.name, $0) } }
            case nil: break
            }
            return Rule(path: c.path.flatMap { regex($0, caseSensitive: cs, path: true) }, query: query, items: items,
                        fragment: c.fragment.flatMap { regex($0, caseSensitive: cs, path: false) }, exclude: c.exclude)
        }
    }

    static func whole(_ regex: NSRegularExpression, _ text: String) -> Bool {
        regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    /// "match", "exclude" or "no_match".
    public func decide(_ url: String) -> String {
        guard let (host, path, query, fragment) = Self.split(url), host.lowercased() == Workload.domain else { return "no_match" }
        let items = query.split(separator: "&").map { pair -> (String, String) in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }
        for rule in rules {
            if let p = rule.path, !Self.whole(p, path) { continue }
            if let q = rule.query, !Self.whole(q, query) { continue }
            var itemsOK = true
            for (name, pattern) in rule.items {
                let values = items.filter { $0.0 == name }.map(\.1)
                if values.isEmpty ? !Self.whole(pattern, "") : !values.allSatisfy({ Self.whole(pattern, $0) }) { itemsOK = false; break }
            }
            if !itemsOK { continue }
            if let f = rule.fragment, !Self.whole(f, fragment) { continue }
            return rule.exclude ? "exclude" : "match"
        }
        return "no_match"
    }

    /// `https://host/path?query#fragment` split as written (the matcher's own split is internal
    /// to UniversalLinks); nil unless the URL is absolute with a host.
    static func split(_ url: String) -> (host: Substring, path: String, query: String, fragment: String)? {
        guard let schemeEnd = url.range(of: "://") else { return nil }
        let rest = url[schemeEnd.upperBound...]
        let hostEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let host = rest[..<hostEnd]
        guard !host.isEmpty else { return nil }
        var tail = rest[hostEnd...]
        var fragment = ""
        if let hash = tail.firstIndex(of: "#") { fragment = String(tail[tail.index(after: hash)...]); tail = tail[..<hash] }
        var query = ""
        if let mark = tail.firstIndex(of: "?") { query = String(tail[tail.index(after: mark)...]); tail = tail[..<mark] }
        return (host, tail.isEmpty ? "/" : String(tail), query, fragment)
    }
}

