import ArgumentParser
import Foundation
import HandoverConfiguration
import HandoverServer

/// Shared Signals flags of `handover serve` (issue 43): the transmitter's event retention, and
/// the organisation's identity provider as a transmitter of security events to this server.
struct SharedSignalsOptions: ParsableArguments {
    @Option(name: .customLong("ssf-event-retention"),
            help: ArgumentHelp("How long a security event waits for its receiver (pushed, or acknowledged by a poll) before it is dropped (7d is 168h; 90m, 3600s). Env: HANDOVER_SSF_EVENT_RETENTION. Default: 168h",
                               valueName: "duration"))
    var eventRetention: String?

    @Option(name: .customLong("ssf-transmitter-issuer"),
            help: ArgumentHelp("Your identity provider as a Shared Signals transmitter: the iss of its SETs, exactly. Its CAEP session-revoked and credential-change, and RISC account-disabled, account-purged, credential-compromise and sessions-revoked end the person's sessions and hand over the device they hold. Env: HANDOVER_SSF_TRANSMITTER_ISSUER.",
                               valueName: "url"))
    var issuer: String?

    @Option(name: .customLong("ssf-transmitter-jwks-url"),
            help: ArgumentHelp("The URL of that provider's JSON Web Key Set, which signs its SETs and Global Token Revocation requests. Env: HANDOVER_SSF_TRANSMITTER_JWKS_URL.",
                               valueName: "url"))
    var jwksURL: String?

    @Option(name: .customLong("ssf-push-authorization"),
            help: ArgumentHelp("The exact Authorization header value the provider sends with each SET it pushes to POST /ssf/push (16 characters at least). Env: HANDOVER_SSF_PUSH_AUTHORIZATION.",
                               valueName: "value"))
    var pushAuthorization: String?

    @Option(name: .customLong("ssf-transmitter-poll-url"),
            help: ArgumentHelp("Poll the provider's RFC 8936 endpoint for SETs every 2 s instead of (or besides) receiving pushes. Env: HANDOVER_SSF_TRANSMITTER_POLL_URL.",
                               valueName: "url"))
    var pollURL: String?

    @Option(name: .customLong("ssf-transmitter-poll-authorization"),
            help: ArgumentHelp("The Authorization header value to poll with. Env: HANDOVER_SSF_TRANSMITTER_POLL_AUTHORIZATION.", valueName: "value"))
    var pollAuthorization: String?

    /// Applies the flags given on top of `configuration` (already read from the environment).
    func apply(to configuration: inout ServerConfiguration) throws {
        try ServerConfiguration.applySharedSignals(.init(eventRetention: eventRetention, issuer: issuer, jwksURL: jwksURL, pushAuthorization: pushAuthorization,
                                                         pollURL: pollURL, pollAuthorization: pollAuthorization), to: &configuration, flags: true)
    }
}
