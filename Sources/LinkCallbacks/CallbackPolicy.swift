/// What a receiver will act on, and which callbacks it will open.
///
/// A ULC target app receives links from anyone: Apple tells it nothing about who sent a
/// universal link, and the ULC spec does not restrict callbacks. Without a policy, a hostile web
/// page can use the app as an open redirector. The default policy refuses:
///
/// - an action or callback that is not `https` (`http`, `javascript:`, `data:`, `file:`, or a
///   custom scheme, unless ``allowedCustomSchemes`` names it, for x-callback targets only);
/// - user info (`https://good@evil`), backslashes, control characters, and `%0D`, `%0A`, `%00`;
/// - an explicit port (universal links cannot carry one);
/// - a host that is an IP address, empty, or not a valid ASCII/IDNA name;
/// - a `ulc-*` or `x-*` parameter given twice;
/// - a callback that is itself a ULC (a loop);
/// - a link longer than ``maximumLength`` (8 KB).
///
/// With ``allowedHosts`` set, callbacks must also go to a listed host.
///
/// ```swift
/// let policy = try CallbackPolicy(allowedHosts: HostAllowlist(["launcher.example.com", "*.mdm.example.com"]))
/// let link = try policy.evaluate(url.absoluteString)   // throws LinkError with the reason
/// ```
public struct CallbackPolicy: Equatable, Hashable, Sendable {
    /// Hosts that callbacks may go to; `nil` allows any host that passes the other rules.
    public var allowedHosts: HostAllowlist?
    /// Custom schemes (lower case) that x-callback targets may use, such as `launcher`.
    public var allowedCustomSchemes: Set<String>
    /// The longest link accepted, in UTF-8 bytes.
    public var maximumLength: Int
    /// Developer mode: also accept `http`, ports and loopback addresses when the host is
    /// `localhost`, `127.0.0.0/8` or `[::1]`. For simulators and tests on one machine only.
    public var allowsLoopbackHTTP: Bool

    /// The policy with no allowlist and no custom schemes.
    public static let `default` = CallbackPolicy()

    public init(allowedHosts: HostAllowlist? = nil, allowedCustomSchemes: Set<String> = [],
                maximumLength: Int = 8192, allowsLoopbackHTTP: Bool = false) {
        self.allowedHosts = allowedHosts
        self.allowedCustomSchemes = Set(allowedCustomSchemes.map { $0.lowercased() })
        self.maximumLength = maximumLength
        self.allowsLoopbackHTTP = allowsLoopbackHTTP
    }

    /// Parses `text` and applies every rule, returning the link when it may be acted on.
    public func evaluate(_ text: String) throws(LinkError) -> Link {
        let length = text.utf8.count
        guard length <= maximumLength else {
            throw LinkError(parameter: "link", problem: .tooLong, detail: "the link is \(length) bytes long",
                            accepted: "at most \(maximumLength) bytes")
        }
        let link = try Link(parsing: text)
        switch link {
        case .universalLinkCallback(let ulc):
            try check(ulc.action.absoluteString, parameter: "action", role: .action)
            try check(ulc.success.absoluteString, parameter: "ulc-success", role: .callback)
            try check(ulc.error.absoluteString, parameter: "ulc-error", role: .callback)
        case .xCallback(let request):
            try check(request)
        }
        return link
    }

    /// Applies the callback rules to one URL a receiver is about to open.
    ///
    /// - Parameter text: the callback URL, as the link carries it.
    /// - Parameter parameter: the name to report (`ulc-success`, `x-error`…).
    /// - Parameter allowsCustomScheme: whether ``allowedCustomSchemes`` apply (x-callback targets).
    public func checkCallback(_ text: String, parameter: String, allowsCustomScheme: Bool = false) throws(LinkError) {
        try check(text, parameter: parameter, role: allowsCustomScheme ? .xCallbackTarget : .callback)
    }

    /// Applies the action rules (and ``maximumLength``) to a link's action alone, leaving its
    /// callbacks to ``checkCallback(_:parameter:allowsCustomScheme:)``.
    ///
    /// A ULC receiver uses this to accept a logout whose callbacks it will refuse to open: the
    /// logout still happens, only the redirect does not.
    public func checkAction(_ text: String) throws(LinkError) {
        let length = text.utf8.count
        guard length <= maximumLength else {
            throw LinkError(parameter: "link", problem: .tooLong, detail: "the link is \(length) bytes long",
                            accepted: "at most \(maximumLength) bytes")
        }
        try check(text, parameter: "action", role: .action)
    }

    private func check(_ request: XCallbackRequest) throws(LinkError) {
        for (name, target) in [("x-success", request.success), ("x-error", request.error), ("x-cancel", request.cancel)] {
            if let target { try check(target.absoluteString, parameter: name, role: .xCallbackTarget) }
        }
    }

    private enum Role { case action, callback, xCallbackTarget }

    private static let neverAllowedSchemes: Set<String> = [
        "javascript", "vbscript", "data", "file", "about", "blob", "filesystem", "content", "intent", "jar", "view-source",
    ]

    private func check(_ text: String, parameter: String, role: Role) throws(LinkError) {
        let url = try RawURL(text, parameter: parameter)
        let lowered = text.lowercased()
        for encoded in ["%0d", "%0a", "%00"] where lowered.contains(encoded) {
            throw LinkError(parameter: parameter, problem: .encodedControlCharacter,
                            detail: "it contains \(encoded.uppercased()), an encoded \(encoded == "%00" ? "NUL" : "line break")",
                            accepted: "a URL without encoded CR, LF or NUL")
        }
        let scheme = url.lowercasedScheme
        let isLoopback = allowsLoopbackHTTP && Self.isLoopback(url.host)
        let httpsOnly = "https" + (allowsLoopbackHTTP ? " (or http on a loopback host in developer mode)" : "")
        switch scheme {
        case "https":
            break
        case "http" where isLoopback:
            break
        case _ where Self.neverAllowedSchemes.contains(scheme) || scheme == "http":
            throw LinkError(parameter: parameter, problem: .disallowedScheme, detail: "the scheme is \(scheme)",
                            accepted: role == .xCallbackTarget ? "\(httpsOnly), or an allowed custom scheme" : httpsOnly)
        default:
            guard role == .xCallbackTarget, allowedCustomSchemes.contains(scheme) else {
                let allowed = allowedCustomSchemes.isEmpty ? "none are allowed" : "allowed: \(allowedCustomSchemes.sorted().joined(separator: ", "))"
                throw LinkError(parameter: parameter, problem: .disallowedScheme,
                                detail: "the custom scheme \(scheme) is not allowed here",
                                accepted: role == .xCallbackTarget ? "\(httpsOnly), or a custom scheme the policy allows (\(allowed))" : httpsOnly)
            }
        }
        if url.userInfo != nil {
            throw LinkError(parameter: parameter, problem: .userInfo, detail: "the URL carries user info before '@'",
                            accepted: "a URL with no user name or password")
        }
        if role != .action, try url.queryParameters(parameter: parameter).contains(where: { $0.name == "ulc-success" }) {
            throw LinkError(parameter: parameter, problem: .callbackLoop, detail: "the callback is itself a ULC",
                            accepted: "a plain URL with no ulc-success parameter")
        }
        guard scheme == "https" || scheme == "http" else { return }  // an allowed custom scheme: no host rules
        guard let rawHost = url.host, !rawHost.isEmpty else {
            throw LinkError(parameter: parameter, problem: .emptyHost, detail: "the URL has no host",
                            accepted: "https://host.example.com/…")
        }
        if isLoopback {
            // An allowlist still applies: a loopback host passes only when listed by name
            // (`localhost`); an IP address can never be listed, so it never passes one.
            if role != .action, let allowedHosts, !allowedHosts.listsExactly(rawHost.lowercased()) {
                throw LinkError(parameter: parameter, problem: .hostNotAllowed, detail: "the host \(rawHost) is not on the allowlist",
                                accepted: allowedHosts.description)
            }
            return
        }
        if url.port != nil {
            throw LinkError(parameter: parameter, problem: .explicitPort, detail: "the URL names port '\(url.port ?? "")'",
                            accepted: "no port; universal links always use 443")
        }
        let host = try HostName(rawHost, parameter: parameter)
        if role != .action, let allowedHosts, !allowedHosts.allows(host) {
            throw LinkError(parameter: parameter, problem: .hostNotAllowed, detail: "the host \(host.ascii) is not on the allowlist",
                            accepted: allowedHosts.description)
        }
    }

    /// Whether a URL's host is loopback: `localhost`, `[::1]`, or four decimal octets starting
    /// with 127. A name such as `127.evil.example` is not.
    public static func isLoopback(_ host: String?) -> Bool {
        guard let host = host?.lowercased() else { return false }
        if host == "localhost" || host == "[::1]" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }
}
