/// An attribute's path as RFC 7644 §3.10 writes it (`attrPath`): `userName`, `name.givenName`,
/// `urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber`.
///
/// `attrPath = [URI ":"] ATTRNAME *1subAttr`, `ATTRNAME = ALPHA *(nameChar)`,
/// `nameChar = "-" / "_" / DIGIT / ALPHA`, `subAttr = "." ATTRNAME`; `$ref` is also accepted as a
/// name (RFC 7643 §2.3.7 names the reference sub-attribute so). The URI is everything up to the
/// last `:` before the attribute's name.
public struct SCIMAttributePath: Sendable, Hashable, CustomStringConvertible {
    /// The schema URI the path was written with, when it was.
    public var schema: String?
    /// The attribute's name, as written.
    public var attribute: String
    /// The sub-attribute's name (`givenName` of `name.givenName`), when there is one.
    public var subAttribute: String?

    /// A path from its parts.
    public init(schema: String? = nil, attribute: String, subAttribute: String? = nil) {
        self.schema = schema
        self.attribute = attribute
        self.subAttribute = subAttribute
    }

    /// Reads an `attrPath`; throws ``SCIMError`` `invalidPath` naming the character that was
    /// wrong and what is accepted.
    public init(parsing text: String) throws(SCIMError) {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count <= SCIMFilterParser.maximumLength else {
            throw SCIMError.bad(.invalidPath, "attribute path is \(scalars.count) characters long; at most \(SCIMFilterParser.maximumLength) are accepted")
        }
        self = try Self.parse(scalars, offset: 0, kind: .invalidPath, whole: text)
    }

    /// Reads the comma-separated list of the `attributes` and `excludedAttributes` query
    /// parameters (RFC 7644 §3.4.2.5, §3.9); spaces around the names are ignored and so are empty
    /// items. A name that is not a syntactically valid `attrPath` throws ``SCIMError``
    /// `invalidValue` naming it; names the schema does not know are kept (projection ignores them).
    public static func list(parsing text: String) throws(SCIMError) -> [SCIMAttributePath] {
        var paths: [SCIMAttributePath] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let name = item.trimmingSpaces
            if name.isEmpty { continue }
            do {
                paths.append(try SCIMAttributePath(parsing: name))
            } catch {
                throw SCIMError.bad(.invalidValue, "attribute list \"\(text)\": \(error.detail)")
            }
        }
        return paths
    }

    /// The path as RFC 7644 §3.10 writes it.
    public var description: String {
        (schema.map { $0 + ":" } ?? "") + attribute + (subAttribute.map { "." + $0 } ?? "")
    }

    /// Parses `scalars` as a whole `attrPath`; `offset` is where they start in `whole` (for the
    /// positions of errors), `kind` the error's `scimType`.
    /// Every caller bounds its text to ``SCIMFilterParser/maximumLength`` first, so a position
    /// (`offset` plus an index into `scalars`) stays far below `Int.max`.
    static func parse(_ scalars: [Unicode.Scalar], offset: Int, kind: SCIMError.Kind, whole: String) throws(SCIMError) -> SCIMAttributePath {
        guard (0...SCIMFilterParser.maximumLength).contains(offset), scalars.count <= SCIMFilterParser.maximumLength else {
            throw SCIMError.bad(kind, "attribute path: at most \(SCIMFilterParser.maximumLength) characters are accepted")
        }
        func fail(_ at: Int, _ what: String) -> SCIMError {
            SCIMError.bad(kind, "attribute path in \"\(whole)\": \(what) at character \(offset + at + 1); "
                + "a path is a name (a letter, then letters, digits, '-' or '_'; or $ref), optionally after a schema URI and ':', "
                + "optionally followed by '.' and a sub-attribute's name (RFC 7644 §3.10)")
        }
        guard !scalars.isEmpty else { throw fail(0, "an attribute name is missing") }
        var nameStart = 0
        var schema: String?
        if let lastColon = scalars.lastIndex(of: ":") {
            guard lastColon > 0 else { throw fail(0, "the schema URI before ':' is empty") }
            for (at, scalar) in scalars[..<lastColon].enumerated() where scalar.value <= 0x20 || scalar.value == 0x7F || "\"[]()".unicodeScalars.contains(scalar) {
                throw fail(at, "\(SCIMScanner.show(scalar)) cannot appear in a schema URI")
            }
            var uri = ""
            uri.unicodeScalars.append(contentsOf: scalars[..<lastColon])
            schema = uri
            nameStart = lastColon + 1
        }
        var at = nameStart
        func name(_ role: String) throws(SCIMError) -> String {
            let start = at
            if at + 4 <= scalars.count, String(String.UnicodeScalarView(scalars[at..<(at + 4)])) == "$ref" {
                at += 4
            } else {
                guard at < scalars.count else { throw fail(at, "\(role) is missing") }
                guard scalars[at].isASCIILetter else {
                    throw fail(at, "\(SCIMScanner.show(scalars[at])) cannot start \(role)")
                }
                at += 1
                while at < scalars.count, scalars[at].isNameCharacter { at += 1 }
            }
            return String(String.UnicodeScalarView(scalars[start..<at]))
        }
        let attribute = try name("an attribute name")
        var subAttribute: String?
        if at < scalars.count, scalars[at] == "." {
            at += 1
            subAttribute = try name("a sub-attribute name")
        }
        if at < scalars.count {
            throw fail(at, "\(SCIMScanner.show(scalars[at])) cannot appear in an attribute name")
        }
        return SCIMAttributePath(schema: schema, attribute: attribute, subAttribute: subAttribute)
    }

    /// Whether two paths name the same attribute, names and URIs compared ignoring case.
    func sameAttribute(as other: SCIMAttributePath) -> Bool {
        attribute.lowercased() == other.attribute.lowercased()
            && schema?.lowercased() == other.schema?.lowercased()
            && subAttribute?.lowercased() == other.subAttribute?.lowercased()
    }
}

extension StringProtocol {
    /// Without the spaces at either end.
    var trimmingSpaces: String {
        var scalars = Substring(self).unicodeScalars[...]
        while scalars.first == " " { scalars.removeFirst() }
        while scalars.last == " " { scalars.removeLast() }
        return String(String.UnicodeScalarView(scalars))
    }
}
