/// Values checked and coerced against an attribute's definition (RFC 7643 §2.3), for POST, PUT
/// and PATCH alike.
extension SCIMAttribute {
    /// `value` as one value of this attribute (for a multi-valued attribute: one element):
    /// booleans given as the strings `"true"`/`"false"` in any case become booleans (Entra ID
    /// sends `"False"`), integral decimals become integers where an integer is expected, integers
    /// decimals where a decimal is; a complex value loses its null and readOnly sub-attributes
    /// (RFC 7643 §2.2: a client's readOnly values are ignored) and keeps sub-attributes the
    /// schema does not define. `null` stays `null` (unassigned, RFC 7643 §2.5). Anything else of
    /// the wrong type throws ``SCIMError`` `invalidValue` naming `path` and the type expected.
    func coercedElement(_ value: SCIMValue, path: String) throws(SCIMError) -> SCIMValue {
        func wrong(_ expected: String) -> SCIMError {
            SCIMError.bad(.invalidValue, "attribute '\(path)' must be \(expected), not \(value.kindName) (RFC 7643 §2.3)")
        }
        func wrongComplex() -> SCIMError {
            wrong("an object (a complex attribute with sub-attributes \(subAttributes.map(\.name).joined(separator: ", ")))")
        }
        switch (type, value) {
        case (_, .null): return .null
        case (.boolean, .bool): return value
        case (.boolean, .string(let text)):
            switch text.lowercased() {
            case "true": return .bool(true)
            case "false": return .bool(false)
            default: throw wrong("a boolean (true or false)")
            }
        case (.boolean, _): throw wrong("a boolean (true or false)")
        case (.integer, .integer): return value
        case (.integer, .decimal(let decimal)):
            guard let integer = Int64(exactly: decimal) else { throw wrong("an integer") }
            return .integer(integer)
        case (.integer, _): throw wrong("an integer")
        case (.decimal, .decimal): return value
        case (.decimal, .integer(let integer)): return .decimal(Double(integer))
        case (.decimal, _): throw wrong("a decimal number")
        case (.string, .string), (.reference, .string), (.dateTime, .string), (.binary, .string): return value
        case (.string, _): throw wrong("a string")
        case (.reference, _): throw wrong("a reference (a URI string)")
        case (.dateTime, _): throw wrong("a dateTime string (xsd:dateTime, e.g. \"2008-01-23T04:56:22Z\")")
        case (.binary, _): throw wrong("a base64 string")
        case (.complex, .object(let members)):
            var kept: [String: SCIMValue] = [:]
            for (key, member) in members {
                guard member != .null else { continue }
                guard let subAttribute = subAttribute(key) else { kept[key] = member; continue }
                if subAttribute.mutability == .readOnly { continue }
                let coerced = try subAttribute.coercedElement(member, path: "\(path).\(subAttribute.name)")
                if coerced != .null { kept[key] = coerced }
            }
            return .object(kept)
        case (.complex, .string), (.complex, .integer), (.complex, .decimal), (.complex, .bool):
            // Entra ID sets `manager` to the manager's id alone: a simple value is the `value` sub-attribute.
            guard let valueAttribute = subAttribute("value") else { throw wrongComplex() }
            return .object(["value": try valueAttribute.coercedElement(value, path: "\(path).value")])
        case (.complex, _): throw wrongComplex()
        }
    }

    /// `value` as this attribute's whole value: for a multi-valued attribute an array (a single
    /// value becomes a list of one; nulls are dropped), otherwise ``coercedElement(_:path:)``.
    func coerced(_ value: SCIMValue, path: String) throws(SCIMError) -> SCIMValue {
        guard multiValued else { return try coercedElement(value, path: path) }
        if value == .null { return .null }
        var elements: [SCIMValue] = []
        for element in value.elements {
            let coerced = try coercedElement(element, path: path)
            if coerced != .null { elements.append(coerced) }
        }
        return .array(elements)
    }
}

extension SCIMValue {
    /// What kind of JSON value this is, for errors.
    var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer: "an integer"
        case .decimal: "a decimal number"
        case .string(let text): "the string \(SCIMValue.jsonQuoted(text.count > 40 ? String(text.prefix(40)) + "…" : text))"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

extension Dictionary where Key == String, Value == SCIMValue {
    /// The key under which the dictionary holds `name`, compared ignoring case (RFC 7643 §2.1).
    func key(of name: String) -> String? {
        if self[name] != nil { return name }
        let lowered = name.lowercased()
        return keys.first { $0.lowercased() == lowered }
    }

    /// The member named `name` ignoring case; setting keeps the existing key's spelling, and
    /// setting `nil` removes it.
    subscript(ignoringCase name: String) -> SCIMValue? {
        get { key(of: name).flatMap { self[$0] } }
        set { self[key(of: name) ?? name] = newValue }
    }
}

extension SCIMResourceSchema {
    /// Keeps at most one `primary: true` in each multi-valued attribute that has `primary`
    /// (RFC 7643 §2.4): the one in `preferred` (an element's index per attribute's location),
    /// else the last one.
    func keepingOnePrimary(_ resource: [String: SCIMValue], preferring preferred: (SCIMAttributeLocation, [SCIMValue]) -> Int? = { _, _ in nil }) -> [String: SCIMValue] {
        var resource = resource
        for location in attributesWithPrimary {
            guard case .array(var elements)? = location.read(in: .object(resource)) else { continue }
            let primaries = elements.indices.filter { elements[$0].member("primary") == .bool(true) }
            guard primaries.count > 1, let last = primaries.last else { continue }
            let keep = preferred(location, elements).flatMap { primaries.contains($0) ? $0 : nil } ?? last
            for index in primaries where index != keep {
                if case .object(var members) = elements[index] {
                    members[ignoringCase: "primary"] = nil
                    elements[index] = .object(members)
                }
            }
            location.write(.array(elements), in: &resource)
        }
        return resource
    }
}

extension SCIMAttributeLocation {
    /// Sets (or with `nil` or `null` removes) the attribute in `resource`, keeping the existing
    /// key's spelling; an extension's object is created when needed and dropped when emptied.
    func write(_ value: SCIMValue?, in resource: inout [String: SCIMValue]) {
        let stored: SCIMValue? = (value == .null || value == .array([])) ? nil : value
        guard let container else {
            resource[ignoringCase: name] = stored
            return
        }
        var members = resource[ignoringCase: container]?.objectValue ?? [:]
        members[ignoringCase: name] = stored
        resource[ignoringCase: container] = members.isEmpty ? nil : .object(members)
    }
}
