/// An attribute's path as RFC 7644 §3.10 writes it (`attrPath`): `userName`, `name.givenName`,
/// `urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber`.
public struct SCIMAttributePath: Sendable, Hashable, CustomStringConvertible {
    /// The schema URI the path was written with, when it was.
    public var schema: String?
    public var attribute: String
    public var subAttribute: String?

    public init(schema: String? = nil, attribute: String, subAttribute: String? = nil) {
        self.schema = schema
        self.attribute = attribute
        self.subAttribute = subAttribute
    }

    /// Reads an `attrPath`; throws ``SCIMError`` `invalidPath` (or `invalidFilter` inside a filter).
    public init(parsing text: String) throws(SCIMError) {
        // STUB: replaced by the real parser.
        throw SCIMError.bad(.invalidPath, "not built yet")
    }

    public var description: String {
        (schema.map { $0 + ":" } ?? "") + attribute + (subAttribute.map { "." + $0 } ?? "")
    }
}
