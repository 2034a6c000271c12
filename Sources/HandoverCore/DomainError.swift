/// Why the domain refused to do something: what kind of refusal, a stable code, a sentence, and
/// the request field at fault when there is one. The domain knows nothing of HTTP; the server's
/// routes map each ``Kind`` to a status (`APIError(_:)`), and the body keeps the code and reason.
package struct DomainError: Error, Sendable, Equatable {
    /// The kinds of refusal, each one status on the wire.
    package enum Kind: Sendable, Equatable {
        /// A field of the request is wrong (422).
        case invalidField
        /// No such thing (404).
        case notFound
        /// The state of things forbids it now (409).
        case conflict
        /// The storage failed in a way no request can cause (500).
        case storage
    }

    package var kind: Kind
    package var code: String
    package var reason: String
    package var field: String?

    package init(_ kind: Kind, code: String, reason: String, field: String? = nil) {
        self.kind = kind
        self.code = code
        self.reason = reason
        self.field = field
    }

    /// A field at fault, named in the reason too.
    package static func invalid(_ field: String, _ reason: String) -> DomainError {
        DomainError(.invalidField, code: "invalid_field", reason: "\(field): \(reason)", field: field)
    }

    /// Nothing with that id.
    package static func notFound(_ what: String) -> DomainError {
        DomainError(.notFound, code: "not_found", reason: "No \(what) with that id.")
    }
}
