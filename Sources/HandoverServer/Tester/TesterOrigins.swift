import Foundation

/// The two names of this server the conformance tester uses: one an app's allowlist can hold,
/// and one outside it for the hostile round.
struct TesterOrigins: Sendable {
    let origin: PublicOrigin
    /// A second origin of this server for the hostile round (``ServerConfiguration/testerHostileURL``).
    let configuredHostile: URL?

    /// Where the tester's own callbacks go: the public origin, except that on 127.0.0.1 it is
    /// `localhost`, a host name an app's allowlist can hold (allowlists take no IP addresses).
    var callback: URL {
        let publicURL = origin.url
        guard publicURL.host == "127.0.0.1", var parts = URLComponents(url: publicURL, resolvingAgainstBaseURL: false) else {
            return publicURL
        }
        parts.host = "localhost"
        return parts.url ?? publicURL
    }

    /// A second name of this server, outside any allowlist that holds the callback host: the
    /// configured one, or on loopback `127.0.0.1`, an IP address no allowlist can name.
    var hostile: URL? {
        if let configuredHostile { return configuredHostile }
        let publicURL = origin.url
        guard publicURL.host == "127.0.0.1" || publicURL.host == "localhost",
              var parts = URLComponents(url: publicURL, resolvingAgainstBaseURL: false) else { return nil }
        parts.host = "127.0.0.1"
        return parts.url
    }
}
