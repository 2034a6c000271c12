/// A filter's comparison operator (RFC 7644 §3.4.2.2, Table 3).
public enum SCIMComparison: String, Sendable, Equatable, CaseIterable {
    case eq, ne, co, sw, ew, gt, ge, lt, le
}

/// A `filter` (RFC 7644 §3.4.2.2), parsed.
///
/// ``description`` prints the canonical text of the filter (lower-case operators, one space,
/// JSON values, brackets only where the grammar needs them), which parses back to an equal value.
public indirect enum SCIMFilter: Sendable, Equatable, CustomStringConvertible {
    /// `attrPath compareOp compValue`.
    case compare(SCIMAttributePath, SCIMComparison, SCIMValue)
    /// `attrPath pr`.
    case present(SCIMAttributePath)
    /// `emails[type eq "work"]`: the filter holds for some value of the multi-valued attribute.
    case valuePath(SCIMAttributePath, SCIMFilter)
    /// Both hold.
    case and(SCIMFilter, SCIMFilter)
    /// Either holds.
    case or(SCIMFilter, SCIMFilter)
    /// `not (…)`.
    case not(SCIMFilter)

    /// The most brackets, `not`s and value paths nested in one another that a filter may have.
    public static let maximumDepth = SCIMFilterParser.maximumDepth
    /// The longest filter accepted, in characters (Unicode scalars).
    public static let maximumLength = SCIMFilterParser.maximumLength

    /// Reads a filter; throws ``SCIMError`` `invalidFilter` naming what was wrong and where
    /// (the character's position, 1-based).
    public init(parsing text: String) throws(SCIMError) {
        var parser = SCIMFilterParser(text)
        self = try parser.parseWhole()
    }

    /// Whether `resource` matches, strings compared as `schema` says (caseExact or not).
    ///
    /// RFC 7644 §3.4.2.2: attribute names are matched ignoring case; a multi-valued attribute
    /// matches when any of its values does, and a complex one written without a sub-attribute
    /// (`emails co "@example.com"`) compares its `value` sub-attribute; `pr` holds when the
    /// attribute has a value that is not null, empty or an empty list; `gt`/`ge`/`lt`/`le`
    /// compare strings (dateTimes among them) lexicographically and numbers numerically, and never
    /// hold for booleans; `ne` holds when no value is equal (so also when the attribute is
    /// absent). `eq null` holds when the attribute is absent, `ne null` when it is present.
    /// Extension attributes are read under their schema's URI, whether the path names it or,
    /// when only one of the resource type's schemas defines the name, not.
    public func matches(_ resource: SCIMValue, schema: SCIMResourceSchema) -> Bool {
        SCIMFilterEvaluation(scope: .resource(schema)).holds(self, on: resource)
    }

    /// The canonical text of the filter.
    public var description: String {
        switch self {
        case .compare(let path, let comparison, let value):
            return "\(path) \(comparison.rawValue) \(value.filterLiteral)"
        case .present(let path):
            return "\(path) pr"
        case .valuePath(let path, let inner):
            return "\(path)[\(inner)]"
        case .not(let inner):
            return "not (\(inner))"
        case .and(let left, let right):
            let leftText = if case .or = left { "(\(left))" } else { left.description }
            let rightText = switch right {
            case .or, .and: "(\(right))"
            default: right.description
            }
            return "\(leftText) and \(rightText)"
        case .or(let left, let right):
            let rightText = if case .or = right { "(\(right))" } else { right.description }
            return "\(left) or \(rightText)"
        }
    }
}

extension SCIMValue {
    /// The value as a filter's `compValue` (JSON).
    var filterLiteral: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .integer(let value): return String(value)
        case .decimal(let value): return value.isFinite ? "\(value)" : "null"
        case .string(let value): return Self.jsonQuoted(value)
        case .array(let values): return "[" + values.map(\.filterLiteral).joined(separator: ",") + "]"
        case .object(let members):
            return "{" + members.sorted { $0.key < $1.key }.map { Self.jsonQuoted($0.key) + ":" + $0.value.filterLiteral }.joined(separator: ",") + "}"
        }
    }

    /// `text` as a JSON string.
    static func jsonQuoted(_ text: String) -> String {
        var quoted = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case "\r": quoted += "\\r"
            case "\t": quoted += "\\t"
            case "\u{08}": quoted += "\\b"
            case "\u{0C}": quoted += "\\f"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    quoted += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    quoted.unicodeScalars.append(scalar)
                }
            }
        }
        return quoted + "\""
    }
}
