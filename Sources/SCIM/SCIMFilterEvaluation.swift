/// Evaluates a ``SCIMFilter`` on a resource (RFC 7644 §3.4.2.2), or on one value of a complex
/// multi-valued attribute (inside a value path, and for PATCH's value filters).
struct SCIMFilterEvaluation {
    /// What attribute names are resolved against.
    enum Scope {
        /// A whole resource of this type.
        case resource(SCIMResourceSchema)
        /// One value of a complex attribute with these sub-attributes.
        case complex([SCIMAttribute])
    }

    var scope: Scope

    func holds(_ filter: SCIMFilter, on value: SCIMValue) -> Bool {
        switch filter {
        case .and(let left, let right): return holds(left, on: value) && holds(right, on: value)
        case .or(let left, let right): return holds(left, on: value) || holds(right, on: value)
        case .not(let inner): return !holds(inner, on: value)
        case .present(let path):
            let target = resolve(path, in: value)
            if path.subAttribute != nil { return target.leaves.contains { $0.isPresent } }
            return target.raw?.isPresent ?? false
        case .valuePath(let path, let inner):
            let target = resolve(path, in: value)
            let nested = SCIMFilterEvaluation(scope: .complex(target.attribute?.subAttributes ?? []))
            let elements: [SCIMValue] = if path.subAttribute != nil { target.leaves } else { target.raw?.elements ?? [] }
            return elements.contains { nested.holds(inner, on: $0) }
        case .compare(let path, let comparison, let expected):
            let target = resolve(path, in: value)
            let caseExact = target.leafAttribute?.caseExact ?? false
            let leaves = target.leaves.filter { $0 != .null }
            switch (comparison, expected) {
            case (.eq, .null): return leaves.isEmpty
            case (.ne, .null): return !leaves.isEmpty
            case (.ne, _): return !leaves.contains { Self.compare($0, .eq, expected, caseExact: caseExact) }
            default: return leaves.contains { Self.compare($0, comparison, expected, caseExact: caseExact) }
            }
        }
    }

    /// What a path names in `value`: the raw member, its definition, and the values a comparison
    /// looks at (`leaves`: the sub-attribute's values, or for a complex multi-valued attribute
    /// without a sub-attribute its values' `value`, or the attribute's values).
    struct Target {
        var raw: SCIMValue?
        var attribute: SCIMAttribute?
        var leaves: [SCIMValue]
        var leafAttribute: SCIMAttribute?
    }

    func resolve(_ path: SCIMAttributePath, in value: SCIMValue) -> Target {
        let raw: SCIMValue?
        let attribute: SCIMAttribute?
        switch scope {
        case .resource(let schema):
            let location = schema.location(of: path)
            attribute = location.attribute
            raw = location.read(in: value)
        case .complex(let subAttributes):
            attribute = subAttributes.first(named: path.attribute)
            raw = value.member(path.attribute)
        }
        if let subAttribute = path.subAttribute {
            let leaves = (raw?.elements ?? []).flatMap { $0.member(subAttribute)?.elements ?? [] }
            return Target(raw: raw, attribute: attribute, leaves: leaves, leafAttribute: attribute?.subAttribute(subAttribute))
        }
        let elements = raw?.elements ?? []
        if attribute?.type == .complex || elements.contains(where: { $0.objectValue != nil }) {
            let leaves = elements.compactMap { element in element.objectValue == nil ? element : element.member("value") }
            return Target(raw: raw, attribute: attribute, leaves: leaves, leafAttribute: attribute?.subAttribute("value"))
        }
        return Target(raw: raw, attribute: attribute, leaves: elements, leafAttribute: attribute)
    }

    /// One value against the filter's `compValue`.
    static func compare(_ actual: SCIMValue, _ comparison: SCIMComparison, _ expected: SCIMValue, caseExact: Bool) -> Bool {
        switch (actual, expected) {
        case (.string(let actualText), .string(let expectedText)):
            let left = caseExact ? actualText : actualText.lowercased()
            let right = caseExact ? expectedText : expectedText.lowercased()
            switch comparison {
            case .eq: return left == right
            case .ne: return left != right
            case .co: return left.contains(right) || right.isEmpty
            case .sw: return left.hasPrefix(right)
            case .ew: return left.hasSuffix(right)
            case .gt: return left > right
            case .ge: return left >= right
            case .lt: return left < right
            case .le: return left <= right
            }
        case (.bool(let left), .bool(let right)):
            switch comparison {
            case .eq: return left == right
            case .ne: return left != right
            default: return false
            }
        default:
            guard let left = actual.number, let right = expected.number else { return false }
            switch comparison {
            case .eq: return left == right
            case .ne: return left != right
            case .gt: return left > right
            case .ge: return left >= right
            case .lt: return left < right
            case .le: return left <= right
            case .co, .sw, .ew: return false
            }
        }
    }
}

extension SCIMAttributeLocation {
    /// The attribute's value in `resource`, names compared ignoring case.
    func read(in resource: SCIMValue) -> SCIMValue? {
        if let container {
            return resource.member(container)?.member(name)
        }
        return resource.member(name)
    }
}

extension SCIMValue {
    /// The values of an array, or this value alone.
    var elements: [SCIMValue] {
        if case .array(let values) = self { return values }
        return [self]
    }

    /// Whether the value counts as present for `pr` (RFC 7644 §3.4.2.2): not null, not an empty
    /// string, list or object.
    var isPresent: Bool {
        switch self {
        case .null: return false
        case .string(let text): return !text.isEmpty
        case .array(let values): return values.contains { $0.isPresent }
        case .object(let members): return members.values.contains { $0.isPresent }
        default: return true
        }
    }

    /// A number's value, for comparisons across integers and decimals.
    var number: Double? {
        switch self {
        case .integer(let value): return Double(value)
        case .decimal(let value): return value
        default: return nil
        }
    }
}
