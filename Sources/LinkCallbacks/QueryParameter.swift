/// One `name=value` item of a query, kept both as written and decoded.
public struct QueryParameter: Equatable, Hashable, Sendable {
    /// The name, percent-decoded.
    public var name: String
    /// The value, percent-decoded; `nil` for an item with no `=`.
    public var value: String?
    /// The item exactly as it stood in the query (`ulc-success=https%3A%2F%2F…`).
    public var raw: String

    /// Makes an item from a decoded name and value, encoding both with the unreserved set.
    public init(name: String, value: String?) {
        self.name = name
        self.value = value
        self.raw = PercentEncoding.encodeUnreserved(name) + (value.map { "=" + PercentEncoding.encodeUnreserved($0) } ?? "")
    }

    init(name: String, value: String?, raw: String) {
        self.name = name
        self.value = value
        self.raw = raw
    }

    /// Splits a query (without its `?`) at `&`, and each item at its first `=`.
    ///
    /// Names are compared decoded, so `ulc%2Dsuccess` is `ulc-success`: a link cannot smuggle a
    /// second copy of a parameter past a duplicate check by encoding its name.
    static func parse(query: String, parameter: String) throws(LinkError) -> [QueryParameter] {
        var items: [QueryParameter] = []
        for rawItem in query.split(separator: "&", omittingEmptySubsequences: false) {
            let rawName: Substring
            let rawValue: Substring?
            if let equals = rawItem.firstIndex(of: "=") {
                rawName = rawItem[..<equals]
                rawValue = rawItem[rawItem.index(after: equals)...]
            } else {
                rawName = rawItem
                rawValue = nil
            }
            guard let name = PercentEncoding.decode(rawName) else {
                throw LinkError(parameter: parameter, problem: .invalidPercentEncoding,
                                detail: "the query item name '\(RawURL.excerpt(String(rawName)))' is not valid percent-encoded UTF-8",
                                accepted: "%XX sequences that decode to UTF-8")
            }
            var value: String?
            if let rawValue {
                guard let decoded = PercentEncoding.decode(rawValue) else {
                    throw LinkError(parameter: name.isEmpty ? parameter : name, problem: .invalidPercentEncoding,
                                    detail: "the value is not valid percent-encoded UTF-8",
                                    accepted: "%XX sequences that decode to UTF-8")
                }
                value = decoded
            }
            items.append(QueryParameter(name: name, value: value, raw: String(rawItem)))
        }
        return items
    }
}

extension Array where Element == QueryParameter {
    /// The query text these items make, joined with `&`.
    var queryText: String { map(\.raw).joined(separator: "&") }
}
