import Foundation

/// Bearer tokens of the client credentials grant (RFC 6749 §4.4): what a registered OAuth client
/// (RFC 7591) presents to the Shared Signals stream management and poll endpoints (RFC 6750).
/// Random, stored as SHA-256 only, valid for ``lifetime``. Issued and read by
/// ``issue(client:on:now:)`` and ``client(of:on:now:)``, which ``SharedSignalsStore``'s file holds.
package enum ClientCredentialsTokens {
    package static let prefix = "hcc_"
    package static let lifetime: TimeInterval = 3600
}
