/// An attribute's definition (RFC 7643 §2.2, §7).
public struct SCIMAttribute: Sendable, Equatable {
    public enum Kind: String, Sendable { case string, boolean, decimal, integer, dateTime, reference, complex, binary }
    public enum Mutability: String, Sendable { case readOnly, readWrite, immutable, writeOnly }
    public enum Returned: String, Sendable { case always, never, `default`, request }
    public enum Uniqueness: String, Sendable { case none, server, global }

    public var name: String
    public var type: Kind
    public var multiValued: Bool = false
    public var description: String = ""
    public var required: Bool = false
    public var caseExact: Bool = false
    public var mutability: Mutability = .readWrite
    public var returned: Returned = .default
    public var uniqueness: Uniqueness = .none
    public var subAttributes: [SCIMAttribute] = []
    public var referenceTypes: [String] = []
    public var canonicalValues: [String] = []
}

/// A schema (RFC 7643 §7).
public struct SCIMSchema: Sendable, Equatable {
    public var id: String
    public var name: String
    public var description: String
    public var attributes: [SCIMAttribute]
}

/// A resource type's schemas, core and extensions: what Handover stores, returns and filters on.
public struct SCIMResourceSchema: Sendable, Equatable {
    public var core: SCIMSchema
    public var extensions: [SCIMSchema]

    public init(core: SCIMSchema, extensions: [SCIMSchema] = []) {
        self.core = core
        self.extensions = extensions
    }
}

// TEMPORARY (lead's tree): the helper's branch replaces this file.
extension SCIMSchema {
    public static let user = SCIMSchema(id: SCIMSchemaURI.user, name: "User", description: "User Account", attributes: [])
    public static let enterpriseUser = SCIMSchema(id: SCIMSchemaURI.enterpriseUser, name: "EnterpriseUser", description: "Enterprise User", attributes: [])
    public static let group = SCIMSchema(id: SCIMSchemaURI.group, name: "Group", description: "Group", attributes: [])
    public func representation(base: String) -> SCIMValue { .object(["id": .string(id)]) }
}

extension SCIMResourceSchema {
    public static let user = SCIMResourceSchema(core: .user, extensions: [.enterpriseUser])
    public static let group = SCIMResourceSchema(core: .group)
    public func normalized(_ resource: SCIMValue) throws(SCIMError) -> SCIMValue { resource }
    public func projected(_ resource: SCIMValue, attributes: [SCIMAttributePath], excludedAttributes: [SCIMAttributePath]) -> SCIMValue { resource }
}

extension SCIMAttributePath {
    public static func list(parsing text: String) throws(SCIMError) -> [SCIMAttributePath] { [] }
}
