/// A PATCH operation's `path` (RFC 7644 §3.5.2): `members`, `name.givenName`,
/// `emails[type eq "work"].value`, `members[value eq "2819c223…"]`, with or without a schema URI.
///
///     PATH = attrPath / valuePath [subAttr]
public struct SCIMPatchPath: Sendable, Equatable, CustomStringConvertible {
    /// The attribute (and, without a filter, possibly its sub-attribute).
    public var attribute: SCIMAttributePath
    /// The value filter in brackets, selecting values of a multi-valued attribute.
    public var filter: SCIMFilter?
    /// The sub-attribute after the brackets (`value` of `emails[type eq "work"].value`).
    public var subAttribute: String?

    /// A path from its parts.
    public init(attribute: SCIMAttributePath, filter: SCIMFilter? = nil, subAttribute: String? = nil) {
        self.attribute = attribute
        self.filter = filter
        self.subAttribute = subAttribute
    }

    /// Reads a PATCH path; throws ``SCIMError`` `invalidPath` naming what was wrong and where.
    public init(parsing text: String) throws(SCIMError) {
        var parser = SCIMFilterParser(text, kind: .invalidPath)
        guard parser.scanner.scalars.count <= SCIMFilterParser.maximumLength else {
            throw SCIMError.bad(.invalidPath, "path is \(parser.scanner.scalars.count) characters long; at most \(SCIMFilterParser.maximumLength) are accepted")
        }
        let token = Array(parser.scanner.take { $0 != "[" }.unicodeScalars)
        attribute = try SCIMAttributePath.parse(token, offset: 0, kind: .invalidPath, whole: text)
        guard parser.scanner.peek == "[" else { return }
        guard attribute.subAttribute == nil else {
            throw SCIMError.bad(.invalidPath, "path \"\(text)\": a value filter '[' at character \(parser.scanner.position) must follow a multi-valued attribute, not the sub-attribute '\(attribute)' (RFC 7644 §3.5.2)")
        }
        parser.scanner.index += 1
        parser.scanner.skipSpaces()
        let filter = try parser.parseOr(inValuePath: true)
        self.filter = filter
        parser.scanner.skipSpaces()
        guard parser.scanner.peek == "]" else {
            throw parser.fail("expected ']' closing the value filter but found \(SCIMScanner.show(parser.scanner.peek))")
        }
        parser.scanner.index += 1
        guard !parser.scanner.atEnd else { return }
        guard parser.scanner.peek == "." else {
            throw SCIMError.bad(.invalidPath, "path \"\(text)\": expected '.' and a sub-attribute or the end after ']' but found \(SCIMScanner.show(parser.scanner.peek)) at character \(parser.scanner.position) (RFC 7644 §3.5.2)")
        }
        parser.scanner.index += 1
        let start = parser.scanner.index
        let rest = Array(parser.scanner.scalars[start...])
        let sub = try SCIMAttributePath.parse(rest, offset: start, kind: .invalidPath, whole: text)
        guard sub.schema == nil, sub.subAttribute == nil else {
            throw SCIMError.bad(.invalidPath, "path \"\(text)\": after ']' only one sub-attribute's name may follow, at character \(start + 1) (RFC 7644 §3.5.2)")
        }
        subAttribute = sub.attribute
    }

    /// The path as RFC 7644 §3.5.2 writes it.
    public var description: String {
        attribute.description + (filter.map { "[\($0)]" } ?? "") + (subAttribute.map { "." + $0 } ?? "")
    }
}

/// One operation of a PATCH request.
public struct SCIMPatchOperation: Sendable, Equatable {
    /// RFC 7644 §3.5.2's operations (`move`, `copy` and `test` of JSON Patch are not SCIM's).
    public enum Op: String, Sendable, Equatable { case add, remove, replace }
    /// What the operation does.
    public var op: Op
    /// Its target; `nil` (add and replace only) means the resource itself.
    public var path: SCIMPatchPath?
    /// The operation's `value`: `nil` when absent, ``SCIMValue/null`` when given as null.
    public var value: SCIMValue?

    /// An operation from its parts.
    public init(op: Op, path: SCIMPatchPath? = nil, value: SCIMValue? = nil) {
        self.op = op
        self.path = path
        self.value = value
    }
}

/// A PATCH request's body (RFC 7644 §3.5.2), `op` read without case (Entra ID sends `Replace`).
public struct SCIMPatchRequest: Sendable, Equatable {
    /// The operations, in the order they apply.
    public var operations: [SCIMPatchOperation]

    /// A request from its operations.
    public init(operations: [SCIMPatchOperation]) {
        self.operations = operations
    }

    /// Reads a PATCH body: `schemas` must hold `urn:ietf:params:scim:api:messages:2.0:PatchOp`
    /// (else ``SCIMError`` `invalidSyntax`); `Operations` (its name read ignoring case) a
    /// non-empty array (else `invalidSyntax`, `invalidValue` when empty); each operation's `op`
    /// one of add, remove, replace in any case (else `invalidValue` naming it); `path`, when
    /// given, a valid path (else `invalidPath`), and required for remove (else `noTarget`, RFC
    /// 7644 §3.5.2.2); `value` required for add and replace (else `invalidValue`).
    public init(body: SCIMValue) throws(SCIMError) {
        guard case .object = body else {
            throw SCIMError.bad(.invalidSyntax, "a PATCH body must be a JSON object, not \(body.kindName) (RFC 7644 §3.5.2)")
        }
        let schemas = body.member("schemas")?.arrayValue?.compactMap(\.stringValue).map { $0.lowercased() } ?? []
        guard schemas.contains(SCIMSchemaURI.patchOp.lowercased()) else {
            throw SCIMError.bad(.invalidSyntax, "a PATCH body's 'schemas' must contain \"\(SCIMSchemaURI.patchOp)\" (RFC 7644 §3.5.2)")
        }
        guard let operations = body.member("Operations")?.arrayValue else {
            throw SCIMError.bad(.invalidSyntax, "a PATCH body must have 'Operations', an array of operations (RFC 7644 §3.5.2)")
        }
        guard !operations.isEmpty else {
            throw SCIMError.bad(.invalidValue, "a PATCH body's 'Operations' must hold at least one operation (RFC 7644 §3.5.2)")
        }
        var parsed: [SCIMPatchOperation] = []
        for (index, operation) in operations.enumerated() {
            let number = index + 1
            guard case .object = operation else {
                throw SCIMError.bad(.invalidSyntax, "operation \(number) must be a JSON object, not \(operation.kindName)")
            }
            guard let name = operation.member("op")?.stringValue else {
                throw SCIMError.bad(.invalidSyntax, "operation \(number) must have 'op', a string: add, remove or replace (RFC 7644 §3.5.2)")
            }
            guard let op = SCIMPatchOperation.Op(rawValue: name.lowercased()) else {
                throw SCIMError.bad(.invalidValue, "operation \(number) has op \(SCIMValue.jsonQuoted(name)); accepted: add, remove, replace (RFC 7644 §3.5.2)")
            }
            var path: SCIMPatchPath?
            switch operation.member("path") {
            case nil, .null?:
                path = nil
            case .string(let text)?:
                do {
                    path = try SCIMPatchPath(parsing: text)
                } catch {
                    throw SCIMError.bad(.invalidPath, "operation \(number) (\(op.rawValue)): \(error.detail)")
                }
            case let other?:
                throw SCIMError.bad(.invalidPath, "operation \(number) (\(op.rawValue)): 'path' must be a string, not \(other.kindName)")
            }
            let value = operation.member("value")
            if op == .remove, path == nil {
                throw SCIMError.bad(.noTarget, "operation \(number) (remove) has no 'path'; remove needs one (RFC 7644 §3.5.2.2)")
            }
            if op != .remove, value == nil {
                throw SCIMError.bad(.invalidValue, "operation \(number) (\(op.rawValue)) has no 'value' (RFC 7644 §3.5.2.\(op == .add ? 1 : 3))")
            }
            parsed.append(SCIMPatchOperation(op: op, path: path, value: value))
        }
        self.operations = parsed
    }

    /// Applies every operation in order, all or nothing: the first that fails throws (its
    /// ``SCIMError`` says which operation, by number, and the attribute) and the caller keeps
    /// the resource as it was.
    ///
    /// RFC 7644 §3.5.2.1–3: add without a path merges an object of attributes (multi-valued ones
    /// appended, complex ones merged, an extension's URI key holding its attributes, keys that
    /// are whole paths as Entra ID and Okta send); add with a path sets a single value, appends
    /// to a multi-valued attribute the values not already there, or sets a sub-attribute;
    /// replace sets (multi-valued: the values given; complex: merged), with a value filter
    /// replaces the matching values or their sub-attribute, else `noTarget` — except Entra ID's
    /// `emails[type eq "work"].value` with no work email, which adds `{"type":"work","value":…}`;
    /// remove removes the attribute, sub-attribute or the values the filter matches, or (Entra
    /// ID) the values listed in `value`. Values are coerced (string booleans) and type-checked
    /// (`invalidValue`), readOnly attributes refused and immutable ones set only while unset
    /// (`mutability`), required ones kept (`invalidValue`), unknown attributes stored as given,
    /// and one value per multi-valued attribute left primary (the last one made so).
    public func apply(to resource: SCIMValue, schema: SCIMResourceSchema) throws(SCIMError) -> SCIMValue {
        guard case .object(let members) = resource else {
            throw SCIMError.bad(.invalidSyntax, "the resource to patch must be a JSON object, not \(resource.kindName)")
        }
        var patch = SCIMPatchApplication(schema: schema, resource: members)
        for (index, operation) in operations.enumerated() {
            do {
                try patch.apply(operation)
            } catch {
                var described = error
                described.detail = "operation \(index + 1) (\(operation.op.rawValue)\(operation.path.map { " \($0)" } ?? "")): \(error.detail)"
                throw described
            }
        }
        return .object(patch.resource)
    }
}
