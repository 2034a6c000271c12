/// Why the domain refused to do something: what kind of refusal, a stable code, a sentence, and
/// the request field at fault when there is one. The domain knows nothing of HTTP; the server's
/// routes map each ``Kind`` to a status (`APIError(_:)`), and the body keeps the code and reason.
///
/// ```swift
/// throw DomainError(.conflict, code: "already_answered", reason: "This request was already answered; nothing changed.")
/// throw DomainError.invalid("apps[2]", "no target app has the id …")
/// ```
package struct DomainError: Error, Sendable, Equatable {
    /// A kind of refusal, each one status on the wire. New kinds are added as static members
    /// (the style of jwt-kit's `JWTError.ErrorType`), so code that tests for a kind keeps
    /// compiling when the list grows.
    package struct Kind: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable {
            case invalidField, notFound, conflict, storage, badRequest, unauthenticated, forbidden, gone, rateLimited, unavailable
        }

        private let base: Base

        private init(_ base: Base) { self.base = base }

        /// A field of the request is wrong (422).
        package static let invalidField = Kind(.invalidField)
        /// No such thing (404).
        package static let notFound = Kind(.notFound)
        /// The state of things forbids it now (409).
        package static let conflict = Kind(.conflict)
        /// The storage failed in a way no request can cause (500).
        package static let storage = Kind(.storage)
        /// The request cannot be read as what it claims to be (400).
        package static let badRequest = Kind(.badRequest)
        /// Nobody is signed in, or the credential is not valid (401).
        package static let unauthenticated = Kind(.unauthenticated)
        /// The one asking may not do this (403).
        package static let forbidden = Kind(.forbidden)
        /// It existed, and is over: an expired request (410).
        package static let gone = Kind(.gone)
        /// Too many tries from one place; ``DomainError/retryAfter`` says when to try again (429).
        package static let rateLimited = Kind(.rateLimited)
        /// The database did not answer in time; ``DomainError/retryAfter`` says when to try again (503).
        package static let unavailable = Kind(.unavailable)

        package var description: String { base.rawValue }
    }

    package var kind: Kind
    package var code: String
    package var reason: String
    package var field: String?
    /// For ``Kind/rateLimited``: the seconds after which to try again.
    package var retryAfter: Int?

    package init(_ kind: Kind, code: String, reason: String, field: String? = nil, retryAfter: Int? = nil) {
        self.kind = kind
        self.code = code
        self.reason = reason
        self.field = field
        self.retryAfter = retryAfter
    }

    /// A field at fault, named in the reason too.
    package static func invalid(_ field: String, _ reason: String) -> DomainError {
        DomainError(.invalidField, code: "invalid_field", reason: "\(field): \(reason)", field: field)
    }

    /// Too many tries from one place; try again after `seconds`.
    package static func rateLimited(retryAfter seconds: Int) -> DomainError {
        DomainError(.rateLimited, code: "rate_limited", reason: "Too many requests from this address; try again in \(seconds) seconds.",
                    retryAfter: seconds)
    }

    /// The database did not answer a write in time (a restart, a failover): nothing is known to be
    /// written; the same request may be sent again in a second (a run start with its
    /// `Idempotency-Key`, a callback by its nonce, are recorded once).
    package static let databaseUnavailable = DomainError(.unavailable, code: "database_unavailable",
                                                         reason: "The database did not answer in time; try again in a second.", retryAfter: 1)

    /// PostgreSQL closed the connection under a transaction (a restart, a failover): nothing of it
    /// is known to be written, and the same request may be sent again in a second (a run start
    /// with its `Idempotency-Key`, a callback by its nonce, are recorded once).
    package static let connectionLost = DomainError(.unavailable, code: "database_unavailable",
                                                    reason: "The database closed its connection; try again in a second.", retryAfter: 1)

    /// Nothing with that id.
    package static func notFound(_ what: String) -> DomainError {
        DomainError(.notFound, code: "not_found", reason: "No \(what) with that id.")
    }
}
