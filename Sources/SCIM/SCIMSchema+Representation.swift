/// Schemas as the `/Schemas` endpoint returns them (RFC 7643 §7, §8.7.1).
extension SCIMSchema {
    /// The schema's JSON (RFC 7643 §7): `id`, `name`, `description`, `attributes` with every
    /// characteristic (`subAttributes` for complex ones, `referenceTypes` for references,
    /// `canonicalValues` when there are some) and `meta` (`resourceType` "Schema", `location`
    /// `<base>/Schemas/<id>`). `base` is the SCIM base URL without a trailing `/`.
    public func representation(base: String) -> SCIMValue {
        let trimmedBase = base.hasSuffix("/") ? String(base.dropLast()) : base
        return .object([
            "schemas": .array([.string(SCIMSchemaURI.schema)]),
            "id": .string(id),
            "name": .string(name),
            "description": .string(description),
            "attributes": .array(attributes.map(\.representation)),
            "meta": .object([
                "resourceType": .string("Schema"),
                "location": .string("\(trimmedBase)/Schemas/\(id)"),
            ]),
        ])
    }
}

extension SCIMAttribute {
    /// The attribute's JSON (RFC 7643 §7).
    public var representation: SCIMValue {
        var members: [String: SCIMValue] = [
            "name": .string(name),
            "type": .string(type.rawValue),
            "multiValued": .bool(multiValued),
            "description": .string(description),
            "required": .bool(required),
            "mutability": .string(mutability.rawValue),
            "returned": .string(returned.rawValue),
            "caseExact": .bool(caseExact),
            "uniqueness": .string(uniqueness.rawValue),
        ]
        if type == .complex { members["subAttributes"] = .array(subAttributes.map(\.representation)) }
        if type == .reference { members["referenceTypes"] = .array(referenceTypes.map { .string($0) }) }
        if !canonicalValues.isEmpty { members["canonicalValues"] = .array(canonicalValues.map { .string($0) }) }
        return .object(members)
    }
}
