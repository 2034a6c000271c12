import Foundation

/// A JSON value as SCIM carries it (RFC 7643 §2): a resource, an attribute's value, a PATCH
/// operation's `value`.
///
/// Numbers keep their kind (an integer stays an integer, so `"count": 3` prints back as `3`);
/// booleans stay distinct from numbers and from the strings some clients send for them (Entra ID's
/// `"False"`, which ``SCIMSchema`` coerces where the schema says boolean). Attribute names are
/// compared ignoring case (RFC 7643 §2.1), which ``member(_:)`` does.
public enum SCIMValue: Sendable, Equatable, Codable {
    case null
    case bool(Bool)
    case integer(Int64)
    case decimal(Double)
    case string(String)
    case array([SCIMValue])
    /// An object's members by name, as written.
    case object([String: SCIMValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null; return }
        if let bool = try? container.decode(Bool.self) { self = .bool(bool); return }
        if let integer = try? container.decode(Int64.self) { self = .integer(integer); return }
        if let decimal = try? container.decode(Double.self) { self = .decimal(decimal); return }
        if let string = try? container.decode(String.self) { self = .string(string); return }
        if let array = try? container.decode([SCIMValue].self) { self = .array(array); return }
        self = .object(try container.decode([String: SCIMValue].self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .decimal(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The member named `name` of an object, the name compared ignoring case (RFC 7643 §2.1).
    public func member(_ name: String) -> SCIMValue? {
        guard case .object(let members) = self else { return nil }
        if let exact = members[name] { return exact }
        let lowered = name.lowercased()
        return members.first { $0.key.lowercased() == lowered }?.value
    }

    /// The key under which an object holds `name` (its own spelling), when it holds it.
    public func key(of name: String) -> String? {
        guard case .object(let members) = self else { return nil }
        if members[name] != nil { return name }
        let lowered = name.lowercased()
        return members.keys.first { $0.lowercased() == lowered }
    }

    /// The string, when this is one.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The boolean, when this is one.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements, when this is an array.
    public var arrayValue: [SCIMValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members, when this is an object.
    public var objectValue: [String: SCIMValue]? {
        if case .object(let value) = self { return value }
        return nil
    }
}
