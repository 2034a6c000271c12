/// A PATCH operation's `path` (RFC 7644 §3.5.2): `members`, `name.givenName`,
/// `emails[type eq "work"].value`, `members[value eq "2819c223…"]`.
public struct SCIMPatchPath: Sendable, Equatable {
    public var attribute: SCIMAttributePath
    public var filter: SCIMFilter?
    public var subAttribute: String?

    public init(parsing text: String) throws(SCIMError) {
        throw SCIMError.bad(.invalidPath, "not built yet")  // STUB
    }
}

/// One operation of a PATCH request.
public struct SCIMPatchOperation: Sendable, Equatable {
    public enum Op: String, Sendable, Equatable { case add, remove, replace }
    public var op: Op
    public var path: SCIMPatchPath?
    public var value: SCIMValue?
}

/// A PATCH request's body (RFC 7644 §3.5.2), `op` read without case (Entra ID sends `Replace`).
public struct SCIMPatchRequest: Sendable, Equatable {
    public var operations: [SCIMPatchOperation]

    public init(body: SCIMValue) throws(SCIMError) {
        throw SCIMError.bad(.invalidSyntax, "not built yet")  // STUB
    }

    /// Applies every operation in order, all or nothing.
    public func apply(to resource: SCIMValue, schema: SCIMResourceSchema) throws(SCIMError) -> SCIMValue {
        throw SCIMError.bad(.invalidSyntax, "not built yet")  // STUB
    }
}
