import Foundation
import JWTKit

/// The claims of a SET this server receives (RFC 8417 §2.2, SSF 1.0 §4.1), read loosely enough
/// to say precisely what is wrong with one: every member optional here, checked by
/// ``SharedSignalsReceiver``.
package struct ReceivedSecurityEvent: JWTPayload, Sendable {
    package var iss: String?
    package var aud: AudienceClaim?
    package var iat: Int?
    package var jti: String?
    package var sub: String?
    package var exp: Int?
    package var txn: String?
    package var sub_id: SubjectIdentifier?
    package var events: [String: SecurityEventClaims]?

    package func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// The claims of a Global Token Revocation request's bearer JWT (draft-parecki-oauth-global-token-revocation
/// §3.2 and §6.1): signed by the identity provider, for this server, short-lived, used once, and
/// scoped to this one request.
package struct RevocationRequestClaims: JWTPayload, Sendable {
    package var iss: String?
    package var aud: AudienceClaim?
    package var iat: Int?
    package var exp: Int?
    package var jti: String?
    /// Space-separated scopes (RFC 8693 §4.2, RFC 9068 §2.2.3): must hold ``SharedSignalsReceiver/revocationScope``.
    package var scope: String?

    package func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// A Global Token Revocation request's body (the draft's "Revocation Request"): the person.
package struct RevocationRequest: Decodable, Sendable {
    package var sub_id: SubjectIdentifier
}

/// Why a received SET was refused, as RFC 8935 §2.4 names it (also the `setErrs` of RFC 8936
/// §2.2 when this server polls).
package struct SETRefusal: Error, Sendable, Equatable {
    /// `invalid_request`, `invalid_key`, `invalid_issuer`, `invalid_audience`,
    /// `authentication_failed` or `access_denied`.
    package var err: String
    package var description: String

    package static func invalidRequest(_ text: String) -> SETRefusal { SETRefusal(err: "invalid_request", description: text) }
    package static func invalidKey(_ text: String) -> SETRefusal { SETRefusal(err: "invalid_key", description: text) }
    package static func invalidIssuer(_ text: String) -> SETRefusal { SETRefusal(err: "invalid_issuer", description: text) }
    package static func invalidAudience(_ text: String) -> SETRefusal { SETRefusal(err: "invalid_audience", description: text) }
    package static func authenticationFailed(_ text: String) -> SETRefusal { SETRefusal(err: "authentication_failed", description: text) }
}
