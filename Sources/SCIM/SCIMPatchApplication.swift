/// Applies PATCH operations to a resource (RFC 7644 §3.5.2.1–3), one after another.
///
/// - add or replace without a path: `value` is an object of attributes, each added or replaced
///   as if named by a path; an extension's URI as a key holds an object of the extension's
///   attributes; keys may be whole paths (`name.givenName`,
///   `urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber`), as Entra ID
///   and Okta send them; a readOnly attribute given with its current value is skipped (Okta
///   sends the group's `id` with a new `displayName`).
/// - add with a path: a single-valued attribute is set (a complex one merged with the
///   sub-attributes given); a multi-valued one gets the values given appended, except those
///   already there; a sub-attribute path sets the sub-attribute, creating the complex value.
/// - replace with a path: sets the attribute (a multi-valued one to the values given; a complex
///   one merged, RFC 7644 §3.5.2.3); with a value filter, the matching values (or their
///   sub-attribute) are replaced; when none match, `noTarget`, except the case below.
/// - Entra ID's behaviour: a value filter of equalities with a sub-attribute
///   (`emails[type eq "work"].value`) that matches no value adds one
///   (`{"type": "work", "value": …}`), as Microsoft's "Develop and plan provisioning for a SCIM
///   endpoint" shows Entra ID expecting; this holds for add and replace.
/// - a path that is an extension's URI alone targets the extension's object.
/// - remove: removes the attribute, the sub-attribute, or the values the filter matches
///   (`members[value eq "…"]`); Entra ID's `{"op": "Remove", "path": "members", "value":
///   [{"value": "…"}]}` removes the values listed.
///
/// Values are coerced as ``SCIMAttribute`` says (booleans given as strings among them);
/// attribute names are matched ignoring case and the existing key's spelling is kept; readOnly
/// attributes cannot be changed (`mutability`), immutable ones only set while unset; attributes
/// the schema does not know are stored as given. After each operation at most one value of a
/// multi-valued attribute is primary: the last one the operation made primary.
struct SCIMPatchApplication {
    enum Mode: String { case add, replace }

    let schema: SCIMResourceSchema
    var resource: [String: SCIMValue]

    mutating func apply(_ operation: SCIMPatchOperation) throws(SCIMError) {
        let before = resource
        switch operation.op {
        case .add, .replace:
            let mode: Mode = operation.op == .add ? .add : .replace
            let value = operation.value ?? .null
            if let path = operation.path { try set(path, value, mode) } else { try merge(value, mode) }
        case .remove:
            guard let path = operation.path else {
                throw SCIMError.bad(.noTarget, "remove needs a 'path' (RFC 7644 §3.5.2.2)")
            }
            try remove(path, value: operation.value)
        }
        try checkRequired(against: before)
        resource = schema.keepingOnePrimary(resource) { location, elements in
            let earlierPrimaries = (location.read(in: .object(before))?.elements ?? []).filter { $0.member("primary") == .bool(true) }
            return elements.indices.last { elements[$0].member("primary") == .bool(true) && !earlierPrimaries.contains(elements[$0]) }
        }
    }

    /// Required attributes the resource had must still be there.
    func checkRequired(against original: [String: SCIMValue]) throws(SCIMError) {
        for attribute in schema.core.attributes where attribute.required {
            if original[ignoringCase: attribute.name]?.isPresent == true, resource[ignoringCase: attribute.name]?.isPresent != true {
                throw SCIMError.bad(.invalidValue, "attribute '\(attribute.name)' is required; it cannot be removed or emptied (RFC 7643 §2.2)")
            }
        }
    }

    // MARK: add and replace

    mutating func merge(_ value: SCIMValue, _ mode: Mode) throws(SCIMError) {
        guard case .object(let members) = value else {
            throw SCIMError.bad(.invalidValue, "without a 'path', 'value' must be an object of the attributes to \(mode.rawValue), not \(value.kindName) (RFC 7644 §3.5.2.\(mode == .add ? 1 : 3))")
        }
        for (key, member) in members.sorted(by: { $0.key < $1.key }) {
            if key.lowercased() == "schemas" {
                mergeSchemas(member)
                continue
            }
            if let container = container(named: key, holding: member) {
                guard case .object(let inner) = member else {
                    throw SCIMError.bad(.invalidValue, "'\(key)' must be an object of the extension's attributes, not \(member.kindName)")
                }
                for (name, innerValue) in inner.sorted(by: { $0.key < $1.key }) {
                    var path = try Self.path(named: name)
                    if path.schema == nil { path.schema = container }
                    try set(SCIMPatchPath(attribute: path), innerValue, mode)
                }
                continue
            }
            let path = try Self.path(named: key)
            let location = schema.location(of: path)
            if location.attribute?.mutability == .readOnly, path.subAttribute == nil, location.read(in: .object(resource)) == member {
                // Okta renames a group with {"op":"replace","value":{"id":…,"displayName":…}}: a
                // readOnly attribute given unchanged is not a change.
                continue
            }
            try set(SCIMPatchPath(attribute: path), member, mode)
        }
    }

    /// The schema URI a key of a path-less value names as a whole: the core's, an extension's,
    /// or an unknown `urn:` holding an object.
    func container(named key: String, holding value: SCIMValue) -> String? {
        if key.lowercased() == schema.core.id.lowercased() { return schema.core.id }
        if let known = schema.extension(key) { return known.id }
        guard key.lowercased().hasPrefix("urn:"), case .object = value else { return nil }
        if let path = try? SCIMAttributePath(parsing: key), let uri = path.schema,
           schema.schemaIDs.contains(where: { $0.lowercased() == uri.lowercased() }) {
            return nil
        }
        return key
    }

    static func path(named key: String) throws(SCIMError) -> SCIMAttributePath {
        do {
            return try SCIMAttributePath(parsing: key)
        } catch {
            throw SCIMError.bad(.invalidPath, "the member \(SCIMValue.jsonQuoted(key)) of 'value' is not an attribute: \(error.detail)")
        }
    }

    mutating func mergeSchemas(_ value: SCIMValue) {
        var schemas = resource[ignoringCase: "schemas"]?.arrayValue ?? []
        for uri in value.elements.compactMap(\.stringValue) where !schemas.contains(where: { $0.stringValue?.lowercased() == uri.lowercased() }) {
            schemas.append(.string(uri))
        }
        resource[ignoringCase: "schemas"] = .array(schemas)
    }

    static func label(_ location: SCIMAttributeLocation) -> String {
        (location.container.map { $0 + ":" } ?? "") + (location.attribute?.name ?? location.name)
    }

    mutating func write(_ value: SCIMValue?, at location: SCIMAttributeLocation) {
        location.write(value, in: &resource)
        if let container = location.container, let known = schema.extension(container), resource[ignoringCase: known.id] != nil,
           let schemas = resource[ignoringCase: "schemas"]?.arrayValue,
           !schemas.contains(where: { $0.stringValue?.lowercased() == known.id.lowercased() }) {
            resource[ignoringCase: "schemas"] = .array(schemas + [.string(known.id)])
        }
    }

    mutating func set(_ path: SCIMPatchPath, _ value: SCIMValue, _ mode: Mode) throws(SCIMError) {
        if path.filter == nil, let whole = schema.wholeExtension(path.attribute) {
            // The extension's URI alone: its object's attributes.
            try merge(.object([whole.id: value]), mode)
            return
        }
        let location = schema.location(of: path.attribute)
        let attribute = location.attribute
        let label = Self.label(location)
        if attribute?.mutability == .readOnly {
            throw SCIMError.bad(.mutability, "attribute '\(label)' is readOnly; it cannot be \(mode == .add ? "added" : "replaced") (RFC 7643 §2.2)")
        }
        let current = location.read(in: .object(resource))
        if let filter = path.filter {
            try setFiltered(filter, subAttribute: path.subAttribute, at: location, current: current, value, mode)
            return
        }
        if let subAttribute = path.attribute.subAttribute {
            try setSubAttribute(subAttribute, at: location, current: current, value)
            return
        }
        let isMultiValued = attribute?.multiValued ?? (current?.arrayValue != nil || value.arrayValue != nil)
        let coerced = try attribute?.coerced(value, path: label) ?? value
        if attribute?.mutability == .immutable, let current, current.isPresent, current != coerced {
            throw SCIMError.bad(.mutability, "attribute '\(label)' is immutable and already set (RFC 7643 §2.2)")
        }
        if isMultiValued {
            let values = coerced.elements.filter { $0 != .null }
            guard mode == .add else { write(.array(values), at: location); return }
            var elements = current?.elements.filter { $0 != .null } ?? []
            for value in values where !elements.contains(where: { value.isSubsumed(by: $0) }) {
                elements.append(value)
            }
            write(.array(elements), at: location)
            return
        }
        // A simple value given for a complex attribute (Entra ID's manager id) replaces it whole.
        if case .object = value, case .object(let given) = coerced, case .object(var members)? = current, attribute == nil || attribute?.type == .complex {
            // RFC 7644 §3.5.2.1 and §3.5.2.3: a complex value's sub-attributes not given are left unchanged.
            for (key, member) in given { members[ignoringCase: key] = member == .null ? nil : member }
            write(members.isEmpty ? nil : .object(members), at: location)
            return
        }
        write(coerced, at: location)
    }

    mutating func setSubAttribute(_ subAttribute: String, at location: SCIMAttributeLocation, current: SCIMValue?, _ value: SCIMValue) throws(SCIMError) {
        let definition = location.attribute?.subAttribute(subAttribute)
        let label = Self.label(location) + "." + (definition?.name ?? subAttribute)
        if definition?.mutability == .readOnly {
            throw SCIMError.bad(.mutability, "attribute '\(label)' is readOnly; it cannot be set (RFC 7643 §2.2)")
        }
        let coerced = try definition?.coercedElement(value, path: label) ?? value
        func setting(_ members: inout [String: SCIMValue]) throws(SCIMError) {
            if definition?.mutability == .immutable, let existing = members[ignoringCase: subAttribute], existing.isPresent, existing != coerced {
                throw SCIMError.bad(.mutability, "attribute '\(label)' is immutable and already set (RFC 7643 §2.2)")
            }
            members[ignoringCase: definition?.name ?? subAttribute] = coerced == .null ? nil : coerced
        }
        if location.attribute?.multiValued == true || current?.arrayValue != nil {
            guard let elements = current?.arrayValue, !elements.isEmpty else {
                throw SCIMError.bad(.noTarget, "attribute '\(Self.label(location))' has no values whose '\(subAttribute)' could be set; select one with a filter, e.g. \(Self.label(location))[type eq \"work\"].\(subAttribute) (RFC 7644 §3.5.2)")
            }
            var updated: [SCIMValue] = []
            for element in elements {
                guard case .object(var members) = element else { updated.append(element); continue }
                try setting(&members)
                updated.append(.object(members))
            }
            write(.array(updated), at: location)
            return
        }
        var members = current?.objectValue ?? [:]
        try setting(&members)
        write(members.isEmpty ? nil : .object(members), at: location)
    }

    mutating func setFiltered(_ filter: SCIMFilter, subAttribute: String?, at location: SCIMAttributeLocation, current: SCIMValue?,
                              _ value: SCIMValue, _ mode: Mode) throws(SCIMError) {
        let attribute = location.attribute
        let label = Self.label(location)
        if let attribute, !attribute.multiValued {
            throw SCIMError.bad(.invalidPath, "attribute '\(label)' is not multi-valued; a value filter selects values of a multi-valued attribute (RFC 7644 §3.5.2)")
        }
        var elements = current?.elements.filter { $0 != .null } ?? []
        let evaluation = SCIMFilterEvaluation(scope: .complex(attribute?.subAttributes ?? []))
        let matching = elements.indices.filter { evaluation.holds(filter, on: elements[$0]) }
        let definition = subAttribute.flatMap { attribute?.subAttribute($0) }
        let subLabel = subAttribute.map { label + "." + (definition?.name ?? $0) }
        if definition?.mutability == .readOnly, let subLabel {
            throw SCIMError.bad(.mutability, "attribute '\(subLabel)' is readOnly; it cannot be set (RFC 7643 §2.2)")
        }
        if matching.isEmpty {
            // Entra ID's behaviour: `emails[type eq "work"].value` with no work email adds one.
            guard let subAttribute, let subLabel, var created = filter.equalityMembers else {
                throw SCIMError.bad(.noTarget, "no value of '\(label)' matches [\(filter)] (RFC 7644 §3.5.2.3)")
            }
            let coerced = try definition?.coercedElement(value, path: subLabel) ?? value
            guard coerced != .null else { return }
            created[ignoringCase: definition?.name ?? subAttribute] = coerced
            elements.append(try attribute?.coercedElement(.object(created), path: label) ?? .object(created))
            write(.array(elements), at: location)
            return
        }
        for index in matching {
            if let subAttribute, let subLabel {
                guard case .object(var members) = elements[index] else { continue }
                let coerced = try definition?.coercedElement(value, path: subLabel) ?? value
                if definition?.mutability == .immutable, let existing = members[ignoringCase: subAttribute], existing.isPresent, existing != coerced {
                    throw SCIMError.bad(.mutability, "attribute '\(subLabel)' is immutable and already set (RFC 7643 §2.2)")
                }
                members[ignoringCase: definition?.name ?? subAttribute] = coerced == .null ? nil : coerced
                elements[index] = .object(members)
            } else {
                let coerced = try attribute?.coercedElement(value, path: label) ?? value
                if mode == .add, case .object(let given) = coerced, case .object(var members) = elements[index] {
                    for (key, member) in given { members[ignoringCase: key] = member }
                    elements[index] = .object(members)
                } else {
                    elements[index] = coerced
                }
            }
        }
        write(.array(elements.filter { $0 != .null }), at: location)
    }

    // MARK: remove

    mutating func remove(_ path: SCIMPatchPath, value: SCIMValue?) throws(SCIMError) {
        if path.filter == nil, let whole = schema.wholeExtension(path.attribute) {
            resource[ignoringCase: whole.id] = nil
            return
        }
        let location = schema.location(of: path.attribute)
        let attribute = location.attribute
        let label = Self.label(location)
        if attribute?.mutability == .readOnly {
            throw SCIMError.bad(.mutability, "attribute '\(label)' is readOnly; it cannot be removed (RFC 7643 §2.2)")
        }
        let current = location.read(in: .object(resource))
        if let filter = path.filter {
            if let attribute, !attribute.multiValued {
                throw SCIMError.bad(.invalidPath, "attribute '\(label)' is not multi-valued; a value filter selects values of a multi-valued attribute (RFC 7644 §3.5.2)")
            }
            guard let current else { return }
            var elements = current.elements
            let evaluation = SCIMFilterEvaluation(scope: .complex(attribute?.subAttributes ?? []))
            let matching = Set(elements.indices.filter { evaluation.holds(filter, on: elements[$0]) })
            if let subAttribute = path.subAttribute {
                try checkRemovable(subAttribute, of: location)
                for index in matching {
                    guard case .object(var members) = elements[index] else { continue }
                    members[ignoringCase: subAttribute] = nil
                    elements[index] = .object(members)
                }
            } else {
                elements = elements.indices.filter { !matching.contains($0) }.map { elements[$0] }
            }
            write(.array(elements), at: location)
            return
        }
        if let subAttribute = path.attribute.subAttribute {
            try checkRemovable(subAttribute, of: location)
            switch current {
            case .array(let elements)?:
                write(.array(elements.map { element in
                    guard case .object(var members) = element else { return element }
                    members[ignoringCase: subAttribute] = nil
                    return .object(members)
                }), at: location)
            case .object(var members)?:
                members[ignoringCase: subAttribute] = nil
                write(members.isEmpty ? nil : .object(members), at: location)
            default:
                return
            }
            return
        }
        if attribute?.required == true {
            throw SCIMError.bad(.invalidValue, "attribute '\(label)' is required; it cannot be removed (RFC 7643 §2.2)")
        }
        if attribute?.mutability == .immutable, current?.isPresent == true {
            throw SCIMError.bad(.mutability, "attribute '\(label)' is immutable; it cannot be removed (RFC 7643 §2.2)")
        }
        if let value, value != .null, attribute?.multiValued ?? (current?.arrayValue != nil) {
            // Entra ID's form: remove the values listed.
            let caseExact = attribute?.subAttribute("value")?.caseExact ?? false
            let listed = value.elements
            var elements = current?.elements ?? []
            elements.removeAll { element in listed.contains { Self.isListed(element, by: $0, caseExact: caseExact) } }
            write(.array(elements), at: location)
            return
        }
        write(nil, at: location)
    }

    func checkRemovable(_ subAttribute: String, of location: SCIMAttributeLocation) throws(SCIMError) {
        guard let definition = location.attribute?.subAttribute(subAttribute) else { return }
        let label = Self.label(location) + "." + definition.name
        if definition.mutability == .readOnly || definition.mutability == .immutable {
            throw SCIMError.bad(.mutability, "attribute '\(label)' is \(definition.mutability.rawValue); it cannot be removed (RFC 7643 §2.2)")
        }
    }

    /// Whether `element` is one of the values a remove's `value` lists: the same `value`
    /// sub-attribute, or the same value.
    static func isListed(_ element: SCIMValue, by listed: SCIMValue, caseExact: Bool) -> Bool {
        if case .object = listed, let wanted = listed.member("value"), wanted != .null {
            guard let actual = element.member("value") else { return false }
            return SCIMFilterEvaluation.compare(actual, .eq, wanted, caseExact: caseExact) || actual == wanted
        }
        return listed.isSubsumed(by: element)
    }
}

extension SCIMValue {
    /// Whether `other` already holds this value: equal, or for objects every non-null member of
    /// this one equal in `other` (names ignoring case).
    func isSubsumed(by other: SCIMValue) -> Bool {
        guard case .object(let members) = self, case .object(let others) = other else { return self == other }
        return members.allSatisfy { key, value in value == .null || others[ignoringCase: key] == value }
    }
}

extension SCIMFilter {
    /// The members a value must have to match, when the filter is only `eq` comparisons of
    /// simple names joined by `and` (`type eq "work"`): what Entra ID's add-on-no-match creates.
    var equalityMembers: [String: SCIMValue]? {
        switch self {
        case .compare(let path, .eq, let value) where path.schema == nil && path.subAttribute == nil && value != .null:
            return [path.attribute: value]
        case .and(let left, let right):
            guard let leftMembers = left.equalityMembers, let rightMembers = right.equalityMembers else { return nil }
            return leftMembers.merging(rightMembers) { first, _ in first }
        default:
            return nil
        }
    }
}
