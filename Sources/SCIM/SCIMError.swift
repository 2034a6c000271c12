/// A SCIM error as RFC 7644 §3.12 defines it: the HTTP status, the `scimType` where the RFC names
/// one for the case (Table 9), and a `detail` that says which attribute or parameter was wrong,
/// what was wrong and what is accepted.
public struct SCIMError: Error, Sendable, Equatable, CustomStringConvertible {
    /// RFC 7644 §3.12, Table 9.
    public enum Kind: String, Sendable, Equatable {
        case invalidFilter, tooMany, uniqueness, mutability, invalidSyntax, invalidPath, noTarget, invalidValue, invalidVers, sensitive
    }

    public var status: Int
    public var scimType: Kind?
    public var detail: String

    public init(status: Int, scimType: Kind? = nil, detail: String) {
        self.status = status
        self.scimType = scimType
        self.detail = detail
    }

    /// A 400 of the given kind.
    public static func bad(_ kind: Kind, _ detail: String) -> SCIMError { SCIMError(status: 400, scimType: kind, detail: detail) }

    public var description: String { detail }

    /// The error's body (`urn:ietf:params:scim:api:messages:2.0:Error`), `status` as a string as
    /// RFC 7644 §3.12 shows it.
    public var body: SCIMValue {
        var members: [String: SCIMValue] = [
            "schemas": .array([.string(SCIMSchemaURI.error)]),
            "status": .string(String(status)),
            "detail": .string(detail),
        ]
        if let scimType { members["scimType"] = .string(scimType.rawValue) }
        return .object(members)
    }
}
