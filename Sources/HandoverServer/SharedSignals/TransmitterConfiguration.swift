import Foundation
import HandoverCore

/// The transmitter's configuration metadata (SSF 1.0 §7.1), served at
/// `/.well-known/ssf-configuration`; field names as the specification spells them.
struct TransmitterConfiguration: Codable, Equatable, Sendable {
    var spec_version = "1_0"
    var issuer: String
    var jwks_uri: String
    var delivery_methods_supported = SignalStream.Method.allCases.map(\.rawValue)
    var configuration_endpoint: String
    var status_endpoint: String
    var add_subject_endpoint: String
    var remove_subject_endpoint: String
    var verification_endpoint: String
    var authorization_schemes = [AuthorizationScheme()]
    var default_subjects = "ALL"

    /// SSF §7.1.1: the stream management endpoints take an OAuth bearer token (RFC 6749's client
    /// credentials grant at the token endpoint).
    struct AuthorizationScheme: Codable, Equatable, Sendable {
        var spec_urn = "urn:ietf:rfc:6749"
    }

    init(issuer: String) {
        self.issuer = issuer
        jwks_uri = issuer + OpenIDRoutes.jwksPath
        configuration_endpoint = issuer + "/ssf/stream"
        status_endpoint = issuer + "/ssf/status"
        add_subject_endpoint = issuer + "/ssf/subjects:add"
        remove_subject_endpoint = issuer + "/ssf/subjects:remove"
        verification_endpoint = issuer + "/ssf/verify"
    }
}
