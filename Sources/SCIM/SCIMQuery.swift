import Foundation

/// A list's parameters (RFC 7644 §3.4.2, §3.4.3, §3.9): from a `GET`'s query or a
/// `POST …/.search` body (`urn:ietf:params:scim:api:messages:2.0:SearchRequest`).
public struct SCIMQuery: Sendable, Equatable {
    public var filter: SCIMFilter?
    /// 1-based (§3.4.2.4); below 1 is read as 1.
    public var startIndex: Int
    /// At most ``maximumCount``; negative is read as 0 (§3.4.2.4).
    public var count: Int
    public var attributes: [SCIMAttributePath]
    public var excludedAttributes: [SCIMAttributePath]

    /// What one page holds when `count` is not given, and at most.
    public static let defaultCount = 100
    public static let maximumCount = 1000

    /// Reads a `GET`'s query parameters as given (nil when absent).
    public init(filter: String?, startIndex: String?, count: String?, attributes: String?, excludedAttributes: String?) throws(SCIMError) {
        self.filter = try filter.flatMap { $0.isEmpty ? nil : $0 }.map { text throws(SCIMError) in try SCIMFilter(parsing: text) }
        self.startIndex = max(1, try Self.integer(startIndex, "startIndex") ?? 1)
        self.count = min(Self.maximumCount, max(0, try Self.integer(count, "count") ?? Self.defaultCount))
        self.attributes = try SCIMAttributePath.list(parsing: attributes ?? "")
        self.excludedAttributes = try SCIMAttributePath.list(parsing: excludedAttributes ?? "")
    }

    /// Reads a SearchRequest body.
    public init(searchRequest body: SCIMValue) throws(SCIMError) {
        let schemas = body.member("schemas")?.arrayValue?.compactMap(\.stringValue) ?? []
        guard schemas.contains(SCIMSchemaURI.searchRequest) else {
            throw SCIMError.bad(.invalidValue, "schemas: a search's body lists \(SCIMSchemaURI.searchRequest) (RFC 7644 §3.4.3).")
        }
        func text(_ name: String) throws(SCIMError) -> String? {
            guard let value = body.member(name) else { return nil }
            switch value {
            case .null: return nil
            case .string(let text): return text
            case .integer(let number): return String(number)
            case .array(let items):
                var names: [String] = []
                for item in items {
                    guard let name = item.stringValue else { throw SCIMError.bad(.invalidValue, "\(name): a list of attribute names.") }
                    names.append(name)
                }
                return names.joined(separator: ",")
            default: throw SCIMError.bad(.invalidValue, "\(name): not the type RFC 7644 §3.4.3 gives it.")
            }
        }
        try self.init(filter: try text("filter"), startIndex: try text("startIndex"), count: try text("count"),
                      attributes: try text("attributes"), excludedAttributes: try text("excludedAttributes"))
    }

    static func integer(_ text: String?, _ name: String) throws(SCIMError) -> Int? {
        guard let text else { return nil }
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)) else {
            throw SCIMError.bad(.invalidValue, "\(name): '\(text.prefix(40))' is not an integer.")
        }
        return value
    }
}
