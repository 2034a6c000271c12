import Foundation
import HandoverCore

/// Shared Signals' settings (issue 43): how long the transmitter keeps an event for its
/// receiver, and the organisation's identity provider as a transmitter to this server.
public struct SharedSignalsSettings: Sendable, Equatable {
    /// How long an event waits for its receiver (pushed or acknowledged) before it is dropped
    /// (`HANDOVER_SSF_EVENT_RETENTION`, `--ssf-event-retention`; 7 days by default).
    public var eventRetention: TimeInterval = 7 * 86_400
    /// The identity provider whose SETs this server acts on; nil: `POST /ssf/push` and the
    /// Global Token Revocation endpoint refuse everything.
    package var receiver: SharedSignalsReceiver.Settings?

    public init() {}
}

extension ServerConfiguration {
    /// Reads `HANDOVER_SSF_EVENT_RETENTION` and the receiver's settings:
    /// `HANDOVER_SSF_TRANSMITTER_ISSUER` with `HANDOVER_SSF_TRANSMITTER_JWKS_URL`, and
    /// `HANDOVER_SSF_PUSH_AUTHORIZATION`, `HANDOVER_SSF_TRANSMITTER_POLL_URL`,
    /// `HANDOVER_SSF_TRANSMITTER_POLL_AUTHORIZATION`. The flags of the same names without
    /// `HANDOVER_`, in lower case with dashes, apply on top (``applySharedSignals(_:to:)``).
    package static func readSharedSignalsSettings(_ environment: [String: String], into configuration: inout ServerConfiguration) throws {
        try applySharedSignals(SharedSignalsValues(environment: environment), to: &configuration, flags: false)
    }

    /// The raw values, from the environment or from flags.
    public struct SharedSignalsValues: Sendable {
        public var eventRetention: String?
        public var issuer: String?
        public var jwksURL: String?
        public var pushAuthorization: String?
        public var pollURL: String?
        public var pollAuthorization: String?

        public init(eventRetention: String? = nil, issuer: String? = nil, jwksURL: String? = nil, pushAuthorization: String? = nil,
                    pollURL: String? = nil, pollAuthorization: String? = nil) {
            self.eventRetention = eventRetention
            self.issuer = issuer
            self.jwksURL = jwksURL
            self.pushAuthorization = pushAuthorization
            self.pollURL = pollURL
            self.pollAuthorization = pollAuthorization
        }

        init(environment: [String: String]) {
            func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
            self.init(eventRetention: value("HANDOVER_SSF_EVENT_RETENTION"), issuer: value("HANDOVER_SSF_TRANSMITTER_ISSUER"),
                      jwksURL: value("HANDOVER_SSF_TRANSMITTER_JWKS_URL"), pushAuthorization: value("HANDOVER_SSF_PUSH_AUTHORIZATION"),
                      pollURL: value("HANDOVER_SSF_TRANSMITTER_POLL_URL"), pollAuthorization: value("HANDOVER_SSF_TRANSMITTER_POLL_AUTHORIZATION"))
        }
    }

    /// Applies `values` (the ones given) on top of `configuration`; a mistake names the setting as
    /// the flag (`flags`) or the variable says it.
    public static func applySharedSignals(_ values: SharedSignalsValues, to configuration: inout ServerConfiguration, flags: Bool) throws {
        func name(_ variable: String) -> String {
            flags ? "--" + variable.dropFirst("HANDOVER_".count).lowercased().replacingOccurrences(of: "_", with: "-") : variable
        }
        if let text = values.eventRetention {
            configuration.sharedSignals.eventRetention = try parseOverdueAfter(text, setting: name("HANDOVER_SSF_EVENT_RETENTION"))
        }
        var receiver = configuration.sharedSignals.receiver
        if let issuer = values.issuer {
            guard let parsed = URL(string: issuer), parsed.scheme == "https" || parsed.scheme == "http", parsed.host != nil, !issuer.containsControlCharacter else {
                throw ConfigurationError(setting: name("HANDOVER_SSF_TRANSMITTER_ISSUER"), problem: "'\(issuer.prefix(100))' is not an issuer URL",
                                         accepted: "the identity provider's issuer, exactly as its SETs' iss says, such as https://example.okta.com")
            }
            let jwks = values.jwksURL ?? receiver?.jwksURL.absoluteString
            guard let jwks else {
                throw ConfigurationError(setting: name("HANDOVER_SSF_TRANSMITTER_JWKS_URL"), problem: "is missing while the transmitter's issuer is set",
                                         accepted: "the URL of the provider's JSON Web Key Set, such as https://example.okta.com/oauth2/v1/keys")
            }
            receiver = SharedSignalsReceiver.Settings(issuer: issuer, jwksURL: try Self.url(jwks, setting: name("HANDOVER_SSF_TRANSMITTER_JWKS_URL")),
                                                      pushAuthorization: receiver?.pushAuthorization, pollURL: receiver?.pollURL,
                                                      pollAuthorization: receiver?.pollAuthorization)
        } else if let jwks = values.jwksURL {
            guard receiver != nil else {
                throw ConfigurationError(setting: name("HANDOVER_SSF_TRANSMITTER_ISSUER"), problem: "is missing while the transmitter's JWKS URL is set",
                                         accepted: "the identity provider's issuer, exactly as its SETs' iss says")
            }
            receiver?.jwksURL = try url(jwks, setting: name("HANDOVER_SSF_TRANSMITTER_JWKS_URL"))
        }
        let extras = [("HANDOVER_SSF_PUSH_AUTHORIZATION", values.pushAuthorization), ("HANDOVER_SSF_TRANSMITTER_POLL_URL", values.pollURL),
                      ("HANDOVER_SSF_TRANSMITTER_POLL_AUTHORIZATION", values.pollAuthorization)]
        for (variable, value) in extras where value != nil && receiver == nil {
            throw ConfigurationError(setting: name(variable), problem: "is set without HANDOVER_SSF_TRANSMITTER_ISSUER",
                                     accepted: "the transmitter's issuer and JWKS URL first")
        }
        if let header = values.pushAuthorization {
            guard header.utf8.count >= 16, !header.containsControlCharacter else {
                throw ConfigurationError(setting: name("HANDOVER_SSF_PUSH_AUTHORIZATION"), problem: "is shorter than 16 characters or has control characters",
                                         accepted: "the exact Authorization value the provider sends, such as 'Bearer ' and 32 random characters")
            }
            receiver?.pushAuthorization = header
        }
        if let poll = values.pollURL { receiver?.pollURL = try url(poll, setting: name("HANDOVER_SSF_TRANSMITTER_POLL_URL")) }
        if let header = values.pollAuthorization { receiver?.pollAuthorization = header }
        configuration.sharedSignals.receiver = receiver
    }

    private static func url(_ text: String, setting: String) throws -> URL {
        guard let url = URL(string: text), url.scheme == "https" || url.scheme == "http", url.host != nil, !text.containsControlCharacter else {
            throw ConfigurationError(setting: setting, problem: "'\(text.prefix(100))' is not an http(s) URL", accepted: "an https URL of the identity provider")
        }
        return url
    }
}
