/// A JSON value exactly as written in a document: objects keep their key order and duplicate keys.
///
/// Association files are read with this small, self-contained JSON reader rather than
/// `JSONSerialization` for three reasons: booleans stay distinct from numbers (`"exclude": 1` is
/// not `true`), key order is kept (so a component prints back as written), and nesting depth is
/// bounded (so hostile input cannot exhaust the stack).
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number, kept as its source text (`1`, `-2.5e3`) so nothing is lost in conversion.
    case number(String)
    case string(String)
    case array([JSONValue])
    /// An object's members in document order. A key may appear more than once.
    case object([(key: String, value: JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.number(a), .number(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    /// The value of `key` in an object (the last one, when the key is repeated, as iOS reads it).
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last(where: { $0.key == key })?.value
    }

    /// The string, when this is a string.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The Boolean, when this is `true` or `false`.
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The members, when this is an object.
    public var objectMembers: [(key: String, value: JSONValue)]? {
        if case .object(let m) = self { return m }
        return nil
    }

    /// A short name of the value's type, for error sentences ("a number", "an array").
    public var typeDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a Boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
