/// The hosts a receiver will send the user back to.
///
/// An entry is an exact host (`launcher.example.com`) or `*.` and a suffix (`*.example.com`,
/// which allows `a.example.com` and `a.b.example.com` but not `example.com` itself and never
/// `evilexample.com`). Hosts and entries compare case-insensitively in their ASCII (IDNA) form,
/// so a look-alike in another script never passes.
public struct HostAllowlist: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// Exact hosts, in ASCII form.
    public private(set) var exactHosts: Set<String> = []
    /// Suffixes of `*.` entries, in ASCII form, each with its leading dot (`.example.com`).
    public private(set) var suffixes: [String] = []

    /// Reads entries, throwing a ``LinkError`` on `allow-host` for one that is not a host name.
    public init(_ entries: [String]) throws(LinkError) {
        for entry in entries {
            if entry.hasPrefix("*.") {
                let host = try HostName(String(entry.dropFirst(2)), parameter: "allow-host")
                guard host.ascii.contains(".") else {
                    throw LinkError(parameter: "allow-host", problem: .invalidHost,
                                    detail: "'\(entry)' would allow every subdomain of a top-level domain",
                                    accepted: "*.example.com, with at least two labels after '*.'")
                }
                suffixes.append("." + host.ascii)
            } else if entry.contains("*") {
                throw LinkError(parameter: "allow-host", problem: .invalidHost, detail: "'\(entry)' has '*' other than as a leading '*.'",
                                accepted: "an exact host, or *.example.com")
            } else {
                exactHosts.insert(try HostName(entry, parameter: "allow-host").ascii)
            }
        }
    }

    /// Whether `host` is allowed.
    public func allows(_ host: HostName) -> Bool {
        exactHosts.contains(host.ascii) || suffixes.contains { host.ascii.hasSuffix($0) }
    }

    /// Whether `host` is one of the exact entries, compared as written (for loopback hosts in
    /// developer mode, which are not ``HostName``s).
    public func listsExactly(_ host: String) -> Bool { exactHosts.contains(host) }

    /// The entries, comma-separated, for messages.
    public var description: String {
        (exactHosts.sorted() + suffixes.map { "*" + $0 }).joined(separator: ", ")
    }
}
