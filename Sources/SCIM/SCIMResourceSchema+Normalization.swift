/// The body of a POST or PUT (RFC 7644 §3.3, §3.5.1), checked against the resource type.
extension SCIMResourceSchema {
    /// `resource` as Handover stores it: the client's `id` and `meta` dropped (readOnly, RFC 7644
    /// §3.3 says they are ignored) and so are other readOnly attributes (a User's `groups`) and
    /// readOnly sub-attributes; booleans given as strings coerced; every known attribute's type
    /// checked (``SCIMError`` `invalidValue` naming the attribute and the type expected), an
    /// extension's URI key checked to hold an object; required attributes (a User's `userName`,
    /// a Group's `displayName`) present and not empty, else `invalidValue`; `schemas` and unknown
    /// attributes kept as given; at most one `primary: true` per multi-valued attribute (the
    /// last one given is kept).
    public func normalized(_ resource: SCIMValue) throws(SCIMError) -> SCIMValue {
        guard case .object(let members) = resource else {
            throw SCIMError.bad(.invalidSyntax, "the resource must be a JSON object, not \(resource.kindName)")
        }
        var result: [String: SCIMValue] = [:]
        for (key, value) in members {
            let lowered = key.lowercased()
            if lowered == "schemas" { result[key] = value; continue }
            if let schema = self.extension(key) {
                guard case .object(let extensionMembers) = value else {
                    if value == .null { continue }
                    throw SCIMError.bad(.invalidValue, "'\(key)' must be an object holding the extension's attributes, not \(value.kindName)")
                }
                var kept: [String: SCIMValue] = [:]
                for (name, member) in extensionMembers {
                    guard let attribute = schema.attribute(name) else { kept[name] = member; continue }
                    if attribute.mutability == .readOnly { continue }
                    let coerced = try attribute.coerced(member, path: "\(schema.id):\(attribute.name)")
                    if coerced != .null { kept[name] = coerced }
                }
                if !kept.isEmpty { result[key] = .object(kept) }
                continue
            }
            guard let attribute = core.attribute(key) ?? SCIMSchema.commonAttributes.first(named: key) else {
                result[key] = value
                continue
            }
            if attribute.mutability == .readOnly { continue }
            let coerced = try attribute.coerced(value, path: attribute.name)
            if coerced != .null { result[key] = coerced }
        }
        for attribute in core.attributes where attribute.required {
            guard result[ignoringCase: attribute.name]?.isPresent ?? false else {
                throw SCIMError.bad(.invalidValue, "attribute '\(attribute.name)' is required (RFC 7643 §\(core.id == SCIMSchemaURI.group ? "4.2" : "4.1")) and must not be empty")
            }
        }
        return .object(keepingOnePrimary(result))
    }
}
