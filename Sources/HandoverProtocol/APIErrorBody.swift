import Foundation

/// The body of every error the Handover API answers with:
/// `{"error": code, "reason": sentence, "field": name}`.
///
/// `error` is a code a program can switch on (`invalid_field`, `not_found`, `unauthorized`, …),
/// `reason` a sentence for a person, and `field` the request field at fault, as a path such as
/// `appIDs[0]`, when there is one.
public struct APIErrorBody: Sendable, Hashable, Codable {
    /// A machine-readable code, such as `invalid_field`, `not_found` or `unauthorized`.
    public var error: String
    /// A sentence for people: what was wrong, and what is accepted.
    public var reason: String
    /// The request field at fault, when there is one.
    public var field: String?

    public init(error: String, reason: String, field: String? = nil) {
        self.error = error
        self.reason = reason
        self.field = field
    }
}
