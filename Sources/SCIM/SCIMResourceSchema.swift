/// An attribute's definition (RFC 7643 §2.2, §7).
public struct SCIMAttribute: Sendable, Equatable {
    /// RFC 7643 §2.3's data types.
    public enum Kind: String, Sendable { case string, boolean, decimal, integer, dateTime, reference, complex, binary }
    /// RFC 7643 §7 `mutability`.
    public enum Mutability: String, Sendable { case readOnly, readWrite, immutable, writeOnly }
    /// RFC 7643 §7 `returned`.
    public enum Returned: String, Sendable { case always, never, `default`, request }
    /// RFC 7643 §7 `uniqueness`.
    public enum Uniqueness: String, Sendable { case none, server, global }

    /// The attribute's name, as the schema spells it.
    public var name: String
    /// Its data type.
    public var type: Kind
    /// Whether it holds a list of values.
    public var multiValued: Bool = false
    /// What it is, for people.
    public var description: String = ""
    /// Whether a resource must have it.
    public var required: Bool = false
    /// Whether its strings compare exactly (else ignoring case).
    public var caseExact: Bool = false
    /// Who may change it.
    public var mutability: Mutability = .readWrite
    /// When responses carry it.
    public var returned: Returned = .default
    /// Where its values must be unique.
    public var uniqueness: Uniqueness = .none
    /// A complex attribute's sub-attributes.
    public var subAttributes: [SCIMAttribute] = []
    /// A reference's kinds of target (`User`, `Group`, `external`, `uri`).
    public var referenceTypes: [String] = []
    /// The values the RFC suggests (`work`, `home`, …).
    public var canonicalValues: [String] = []

    /// An attribute with RFC 7643 §2.2's defaults for what is not given.
    public init(name: String, type: Kind, multiValued: Bool = false, description: String = "", required: Bool = false,
                caseExact: Bool = false, mutability: Mutability = .readWrite, returned: Returned = .default,
                uniqueness: Uniqueness = .none, subAttributes: [SCIMAttribute] = [], referenceTypes: [String] = [],
                canonicalValues: [String] = []) {
        self.name = name
        self.type = type
        self.multiValued = multiValued
        self.description = description
        self.required = required
        self.caseExact = caseExact
        self.mutability = mutability
        self.returned = returned
        self.uniqueness = uniqueness
        self.subAttributes = subAttributes
        self.referenceTypes = referenceTypes
        self.canonicalValues = canonicalValues
    }

    /// The sub-attribute named `name`, ignoring case.
    public func subAttribute(_ name: String) -> SCIMAttribute? {
        subAttributes.first(named: name)
    }
}

/// A schema (RFC 7643 §7).
public struct SCIMSchema: Sendable, Equatable {
    /// The schema's URI.
    public var id: String
    /// Its name (`User`).
    public var name: String
    /// What it describes.
    public var description: String
    /// Its attributes, in order.
    public var attributes: [SCIMAttribute]

    /// A schema from its parts.
    public init(id: String, name: String, description: String, attributes: [SCIMAttribute]) {
        self.id = id
        self.name = name
        self.description = description
        self.attributes = attributes
    }

    /// The attribute named `name`, ignoring case.
    public func attribute(_ name: String) -> SCIMAttribute? {
        attributes.first(named: name)
    }
}

/// A resource type's schemas, core and extensions: what Handover stores, returns and filters on.
///
/// The common attributes of RFC 7643 §3.1 (`id`, `externalId`, `meta`, in
/// ``SCIMSchema/commonAttributes``) belong to every resource type without being in its schemas.
public struct SCIMResourceSchema: Sendable, Equatable {
    /// The resource type's core schema.
    public var core: SCIMSchema
    /// Its extensions (none required).
    public var extensions: [SCIMSchema]

    /// A resource type from its schemas.
    public init(core: SCIMSchema, extensions: [SCIMSchema] = []) {
        self.core = core
        self.extensions = extensions
    }

    /// Users: RFC 7643 §4.1's core schema with §4.3's enterprise extension (not required).
    public static let user = SCIMResourceSchema(core: .user, extensions: [.enterpriseUser])
    /// Groups: RFC 7643 §4.2.
    public static let group = SCIMResourceSchema(core: .group)

    /// The definition of the attribute (or sub-attribute) `path` names, when the resource type
    /// has one: the core schema's or a common attribute when the path has no URI or the core's,
    /// an extension's when the path has its URI or, without a URI, when only that extension
    /// defines the name.
    public func attribute(for path: SCIMAttributePath) -> SCIMAttribute? {
        guard let attribute = location(of: path).attribute else { return nil }
        guard let subAttribute = path.subAttribute else { return attribute }
        return attribute.subAttribute(subAttribute)
    }

    /// The extension whose URI is `uri`, ignoring case.
    public func `extension`(_ uri: String) -> SCIMSchema? {
        let lowered = uri.lowercased()
        return extensions.first { $0.id.lowercased() == lowered }
    }

    /// Where `path`'s attribute lives in a resource: under an extension's URI key, or at the top.
    func location(of path: SCIMAttributePath) -> SCIMAttributeLocation {
        if let uri = path.schema {
            if uri.lowercased() == core.id.lowercased() {
                let attribute = core.attribute(path.attribute) ?? SCIMSchema.commonAttributes.first(named: path.attribute)
                return SCIMAttributeLocation(container: nil, name: attribute?.name ?? path.attribute, attribute: attribute)
            }
            if let schema = self.extension(uri) {
                let attribute = schema.attribute(path.attribute)
                return SCIMAttributeLocation(container: schema.id, name: attribute?.name ?? path.attribute, attribute: attribute)
            }
            return SCIMAttributeLocation(container: uri, name: path.attribute, attribute: nil)
        }
        if let attribute = core.attribute(path.attribute) ?? SCIMSchema.commonAttributes.first(named: path.attribute) {
            return SCIMAttributeLocation(container: nil, name: attribute.name, attribute: attribute)
        }
        let defining = extensions.filter { $0.attribute(path.attribute) != nil }
        if defining.count == 1, let schema = defining.first, let attribute = schema.attribute(path.attribute) {
            return SCIMAttributeLocation(container: schema.id, name: attribute.name, attribute: attribute)
        }
        return SCIMAttributeLocation(container: nil, name: path.attribute, attribute: nil)
    }

    /// Every schema's URI of the resource type, core first.
    var schemaIDs: [String] { [core.id] + extensions.map(\.id) }

    /// The multi-valued attributes with a `primary` sub-attribute, by where they live.
    var attributesWithPrimary: [SCIMAttributeLocation] {
        core.attributes.filter { $0.multiValued && $0.subAttribute("primary") != nil }
            .map { SCIMAttributeLocation(container: nil, name: $0.name, attribute: $0) }
            + extensions.flatMap { schema in
                schema.attributes.filter { $0.multiValued && $0.subAttribute("primary") != nil }
                    .map { SCIMAttributeLocation(container: schema.id, name: $0.name, attribute: $0) }
            }
    }
}

/// Where an attribute lives in a resource: `container` is the URI of the extension whose object
/// holds it (`nil` for the top level), `name` the attribute's name (the schema's spelling when
/// the schema defines it, for new keys), `attribute` its definition
/// when the resource type has one.
struct SCIMAttributeLocation: Equatable {
    var container: String?
    var name: String
    var attribute: SCIMAttribute?
}

extension Array where Element == SCIMAttribute {
    /// The attribute named `name`, ignoring case.
    func first(named name: String) -> SCIMAttribute? {
        let lowered = name.lowercased()
        return first { $0.name.lowercased() == lowered }
    }
}
