/// The `attributes` and `excludedAttributes` parameters (RFC 7644 §3.4.2.5, §3.9).
extension SCIMResourceSchema {
    /// `resource` as returned for a request with these parameters (RFC 7644 §3.9):
    ///
    /// - with `attributes`, only the attributes named (a sub-attribute path keeps only that
    ///   sub-attribute, in each value of a multi-valued attribute; an extension's attribute is
    ///   named with its URI, or the extension's URI alone names all of it), plus those returned
    ///   `always` (`id`, and `schemas`);
    /// - with `excludedAttributes` (used only when `attributes` is empty), all but those named;
    ///   attributes returned `always` are never excluded;
    /// - attributes returned `never` are never in the result, those returned `request` only when
    ///   `attributes` names them.
    ///
    /// Names are matched ignoring case; names the resource type does not know match the
    /// resource's members of that name.
    public func projected(_ resource: SCIMValue, attributes: [SCIMAttributePath], excludedAttributes: [SCIMAttributePath]) -> SCIMValue {
        guard case .object(let members) = resource else { return resource }
        var result: [String: SCIMValue]
        if attributes.isEmpty {
            result = members
            for path in excludedAttributes { exclude(path, from: &result) }
            // Never returned, or returned only on request.
            for location in allLocations where [.never, .request].contains(location.attribute?.returned) {
                location.write(nil, in: &result)
            }
        } else {
            result = [:]
            for key in members.keys where key.lowercased() == "schemas" { result[key] = members[key] }
            for location in allLocations where location.attribute?.returned == .always {
                if let value = location.read(in: resource) { location.write(value, in: &result) }
            }
            for path in attributes { include(path, from: resource, into: &result) }
            for location in allLocations where location.attribute?.returned == .never {
                location.write(nil, in: &result)
            }
        }
        return .object(result)
    }

    /// Every attribute the resource type defines, with where it lives.
    var allLocations: [SCIMAttributeLocation] {
        (SCIMSchema.commonAttributes + core.attributes).map { SCIMAttributeLocation(container: nil, name: $0.name, attribute: $0) }
            + extensions.flatMap { schema in schema.attributes.map { SCIMAttributeLocation(container: schema.id, name: $0.name, attribute: $0) } }
    }

    /// The extension a path names as a whole (`urn:…:enterprise:2.0:User` reads as the
    /// attribute `User` of the URI `urn:…:enterprise:2.0`).
    func wholeExtension(_ path: SCIMAttributePath) -> SCIMSchema? {
        guard path.subAttribute == nil, let uri = path.schema else { return nil }
        return self.extension(uri + ":" + path.attribute)
    }

    func include(_ path: SCIMAttributePath, from resource: SCIMValue, into result: inout [String: SCIMValue]) {
        if let schema = wholeExtension(path) {
            if let key = resource.key(of: schema.id), let value = resource.member(key) { result[ignoringCase: key] = value }
            return
        }
        let location = location(of: path)
        guard let value = location.read(in: resource) else { return }
        guard let subAttribute = path.subAttribute else {
            location.write(value, in: &result)
            return
        }
        let existing = location.read(in: .object(result))
        switch value {
        case .array(let elements):
            // Keeps, in each value, this sub-attribute and what other paths already kept.
            let previous = existing?.arrayValue
            if let previous, previous.count == elements.count, existing == value { return }
            var projected: [SCIMValue] = []
            for (index, element) in elements.enumerated() {
                var kept = previous.flatMap { index < $0.count ? $0[index].objectValue : nil } ?? [:]
                if let key = element.key(of: subAttribute), let member = element.member(key) { kept[key] = member }
                projected.append(.object(kept))
            }
            location.write(.array(projected), in: &result)
        case .object:
            if existing == value { return }
            var kept = existing?.objectValue ?? [:]
            if let key = value.key(of: subAttribute), let member = value.member(key) { kept[key] = member }
            location.write(kept.isEmpty ? nil : .object(kept), in: &result)
        default:
            return
        }
    }

    func exclude(_ path: SCIMAttributePath, from result: inout [String: SCIMValue]) {
        if path.subAttribute == nil, path.schema == nil, path.attribute.lowercased() == "schemas" { return }
        if let schema = wholeExtension(path) {
            result[ignoringCase: schema.id] = nil
            return
        }
        let location = location(of: path)
        if location.attribute?.returned == .always { return }
        guard let subAttribute = path.subAttribute else {
            location.write(nil, in: &result)
            return
        }
        if location.attribute?.subAttribute(subAttribute)?.returned == .always { return }
        guard let value = location.read(in: .object(result)) else { return }
        switch value {
        case .array(let elements):
            location.write(.array(elements.map { element in
                guard case .object(var members) = element else { return element }
                members[ignoringCase: subAttribute] = nil
                return .object(members)
            }), in: &result)
        case .object(var members):
            members[ignoringCase: subAttribute] = nil
            location.write(members.isEmpty ? nil : .object(members), in: &result)
        default:
            return
        }
    }
}
