/// One finding of a validator: how bad, where (a JSON path such as
/// `$.applinks.details[0].components[2]`), and a sentence saying what is wrong and what is accepted.
public struct ValidationIssue: Sendable, Equatable, CustomStringConvertible {
    public enum Severity: String, Sendable, Equatable, Comparable {
        /// iOS (or Android) will not use the file, or part of it, as intended.
        case error
        /// Allowed, but almost certainly not what the author meant.
        case warning
        /// Good practice; nothing breaks without it.
        case advice

        private var rank: Int { self == .error ? 0 : self == .warning ? 1 : 2 }
        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }
    }

    public var severity: Severity
    /// A JSON path into the file (`$` is the whole file), or `http` for hosting findings.
    public var location: String
    public var message: String

    public init(_ severity: Severity, at location: String, _ message: String) {
        self.severity = severity
        self.location = location
        self.message = message
    }

    /// `error at $.applinks.details[0].appIDs[0]: ...`
    public var description: String { "\(severity.rawValue) at \(location): \(message)" }
}

/// All findings of one validation, in the order found.
public struct ValidationReport: Sendable, Equatable {
    public var issues: [ValidationIssue]

    public init(issues: [ValidationIssue] = []) { self.issues = issues }

    /// True when any finding is an error.
    public var hasErrors: Bool { issues.contains { $0.severity == .error } }
    public var errors: [ValidationIssue] { issues.filter { $0.severity == .error } }
    public var warnings: [ValidationIssue] { issues.filter { $0.severity == .warning } }

    mutating func add(_ severity: ValidationIssue.Severity, _ location: String, _ message: String) {
        issues.append(ValidationIssue(severity, at: location, message))
    }

    /// This report followed by `other`'s findings.
    public func appending(_ other: ValidationReport) -> ValidationReport {
        ValidationReport(issues: issues + other.issues)
    }
}
