import Foundation

/// A request the test server received, kept so tests can assert on what the client sent.
public struct RecordedRequest: Sendable, Equatable {
    public var method: String
    /// The request target without its query.
    public var path: String
    public var headers: [String: String]
    /// The body exactly as received.
    public var body: String

    /// The body decoded as `application/x-www-form-urlencoded` (`+` and `%20` both read as space,
    /// as a form decoder must); a repeated name keeps its last value.
    public var form: [String: String] {
        var fields: [String: String] = [:]
        for pair in body.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.formDecode(parts[0])
            fields[name] = parts.count > 1 ? Self.formDecode(parts[1]) : ""
        }
        return fields
    }

    /// The raw (still percent-encoded) value of `name` in the body, to check the encoding itself.
    public func rawFormValue(_ name: String) -> String? {
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if Self.formDecode(parts[0]) == name { return parts.count > 1 ? String(parts[1]) : "" }
        }
        return nil
    }

    static func formDecode(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
