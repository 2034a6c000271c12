/// A filter's comparison operator (RFC 7644 §3.4.2.2, Table 3).
public enum SCIMComparison: String, Sendable, Equatable, CaseIterable {
    case eq, ne, co, sw, ew, gt, ge, lt, le
}

/// A `filter` (RFC 7644 §3.4.2.2), parsed.
public indirect enum SCIMFilter: Sendable, Equatable {
    case compare(SCIMAttributePath, SCIMComparison, SCIMValue)
    case present(SCIMAttributePath)
    /// `emails[type eq "work"]`: the filter holds for some value of the multi-valued attribute.
    case valuePath(SCIMAttributePath, SCIMFilter)
    case and(SCIMFilter, SCIMFilter)
    case or(SCIMFilter, SCIMFilter)
    case not(SCIMFilter)

    /// Reads a filter; throws ``SCIMError`` `invalidFilter` naming what was wrong and where.
    public init(parsing text: String) throws(SCIMError) {
        // STUB: replaced by the real parser.
        throw SCIMError.bad(.invalidFilter, "not built yet")
    }

    /// Whether `resource` matches, strings compared as `schema` says (caseExact or not).
    public func matches(_ resource: SCIMValue, schema: SCIMResourceSchema) -> Bool {
        false  // STUB
    }
}
