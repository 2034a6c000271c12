import Foundation

/// A Universal Link Callback: "log out, then open one of these two links".
///
/// The wire form is the app's logout action with two nested, percent-encoded URLs:
///
/// ```
/// https://appb.example.com/logout?ulc-success=https%3A%2F%2Fappa.com%2Fok&ulc-error=https%3A%2F%2Fappa.com%2Ffail
/// ```
///
/// The presence of `ulc-success` is what makes a link a ULC. `ulc-failure`, which one deployed
/// reading of the spec uses, is read as `ulc-error`; ``url`` always writes `ulc-error`.
///
/// ```swift
/// let ulc = try UniversalLinkCallback(
///     action: URL(string: "https://appb.example.com/logout?force=1")!,
///     success: URL(string: "https://launcher.example.com/ulc/ok?run=7&n=abc")!,
///     error: URL(string: "https://launcher.example.com/ulc/failed?run=7&n=abc")!)
/// let link = ulc.url                                  // what the launcher opens
/// let back = try UniversalLinkCallback(parsing: link.absoluteString)   // == ulc
/// ```
///
/// Parsing checks structure only. Whether a receiver should act on a link, and open its
/// callbacks, is ``CallbackPolicy``'s decision.
public struct UniversalLinkCallback: Equatable, Hashable, Sendable {
    /// The app's logout action: an https universal link, possibly with its own query
    /// (`?force=1`), never with a `ulc-` parameter of its own.
    public let action: URL
    /// Opened after a successful logout, and also when no user was signed in.
    public let success: URL
    /// Opened only after an unrecoverable failure, once retries are spent.
    public let error: URL
    /// `ulc-ts`: unix seconds at signing, for signed requests (an optional extension).
    public let timestamp: Int64?
    /// `ulc-sig`: base64url signature, for signed requests (an optional extension).
    public let signature: String?
    private let builtURL: URL

    /// Query parameter names that belong to the ULC protocol, never to the action.
    public static let reservedParameters: Set<String> = ["ulc-success", "ulc-error", "ulc-failure", "ulc-ts", "ulc-sig"]

    /// Makes a ULC from its parts, checking that each is a well-formed URL.
    ///
    /// An action ending in an empty query (`…/logout?`) is stored without it, so that
    /// `UniversalLinkCallback(parsing: x.url.absoluteString) == x` holds for every value.
    public init(action: URL, success: URL, error: URL, timestamp: Int64? = nil, signature: String? = nil) throws(LinkError) {
        try self.init(actionText: action.absoluteString, successText: success.absoluteString,
                      errorText: error.absoluteString, timestamp: timestamp, signature: signature)
    }

    /// Makes a ULC from the texts of its parts.
    public init(actionText: String, successText: String, errorText: String,
                timestamp: Int64? = nil, signature: String? = nil) throws(LinkError) {
        self.action = try Action(actionText).url
        self.success = try Self.foundationURL(try Self.callback(successText, parameter: "ulc-success"), parameter: "ulc-success")
        self.error = try Self.foundationURL(try Self.callback(errorText, parameter: "ulc-error"), parameter: "ulc-error")
        if let timestamp, timestamp < 0 {
            throw LinkError(parameter: "ulc-ts", problem: .invalidValue, detail: "the timestamp \(timestamp) is negative",
                            accepted: "unix seconds")
        }
        if let signature { _ = try Base64URL.decode(signature, parameter: "ulc-sig") }
        self.timestamp = timestamp
        self.signature = signature
        let text = Self.build(action: self.action, success: self.success, error: self.error,
                              timestamp: timestamp, signature: signature)
        guard let built = URL(string: text), built.absoluteString == text else {
            throw LinkError(parameter: "link", problem: .malformedURL, detail: "the joined link is not a URL Foundation reads unchanged",
                            accepted: "an RFC 3986 action URL")
        }
        self.builtURL = built
    }

    /// Reads a ULC from a link's text.
    public init(parsing text: String) throws(LinkError) {
        let url = try RawURL(text, parameter: "link")
        try self.init(parsed: url)
    }

    init(parsed url: RawURL) throws(LinkError) {
        var remaining: [QueryParameter] = []
        var found: [String: QueryParameter] = [:]
        for item in try url.queryParameters(parameter: "link") {
            guard Self.reservedParameters.contains(item.name) else {
                remaining.append(item)
                continue
            }
            let key = item.name == "ulc-failure" ? "ulc-error" : item.name
            if let earlier = found[key] {
                let names = earlier.name == item.name ? "'\(item.name)' appears twice" : "both '\(earlier.name)' and '\(item.name)' are given"
                throw LinkError(parameter: item.name, problem: .duplicateParameter, detail: names,
                                accepted: "each of ulc-success and ulc-error (or its alias ulc-failure) once")
            }
            found[key] = item
        }
        func value(_ name: String) throws(LinkError) -> String {
            guard let item = found[name] else {
                throw LinkError(parameter: name, problem: .missingParameter, detail: "the link has no \(name)",
                                accepted: "a ULC with both ulc-success and ulc-error (ulc-failure is read as ulc-error)")
            }
            guard let value = item.value, !value.isEmpty else {
                throw LinkError(parameter: item.name, problem: .invalidValue, detail: "the value is empty",
                                accepted: "a percent-encoded https URL")
            }
            return value
        }
        let success = try value("ulc-success")
        let error = try value("ulc-error")
        var timestamp: Int64?
        if found["ulc-ts"] != nil {
            let text = try value("ulc-ts")
            guard text.unicodeScalars.allSatisfy(\.isASCIIDigit), text.count <= 18, let seconds = Int64(text) else {
                throw LinkError(parameter: "ulc-ts", problem: .invalidValue, detail: "'\(RawURL.excerpt(text))' is not unix seconds",
                                accepted: "a whole number of seconds since 1970")
            }
            timestamp = seconds
        }
        let signature = found["ulc-sig"] != nil ? try value("ulc-sig") : nil

        var action = url
        action.query = remaining.isEmpty ? nil : remaining.queryText
        try self.init(actionText: action.text, successText: success, errorText: error,
                      timestamp: timestamp, signature: signature)
    }

    /// The link to open: the action with `ulc-success` and `ulc-error` (and, when signed,
    /// `ulc-ts` and `ulc-sig`) added to its query, the nested URLs encoded with the RFC 3986
    /// unreserved set.
    public var url: URL { builtURL }

    /// The link's text; see ``url``.
    public var text: String { builtURL.absoluteString }

    private static func build(action: URL, success: URL, error: URL, timestamp: Int64?, signature: String?) -> String {
        var items = [
            QueryParameter(name: "ulc-success", value: success.absoluteString),
            QueryParameter(name: "ulc-error", value: error.absoluteString),
        ]
        if let timestamp { items.append(QueryParameter(name: "ulc-ts", value: String(timestamp))) }
        if let signature { items.append(QueryParameter(name: "ulc-sig", value: signature)) }
        return Self.appending(items, to: action.absoluteString)
    }

    private init(action: URL, success: URL, error: URL, timestamp: Int64?, signature: String?, builtURL: URL) {
        self.action = action
        self.success = success
        self.error = error
        self.timestamp = timestamp
        self.signature = signature
        self.builtURL = builtURL
    }

    /// This ULC without `ulc-ts` and `ulc-sig`, for signing and for plain receivers.
    public var unsigned: UniversalLinkCallback {
        let text = Self.build(action: action, success: success, error: error, timestamp: nil, signature: nil)
        return UniversalLinkCallback(action: action, success: success, error: error, timestamp: nil, signature: nil,
                                     builtURL: URL(string: text) ?? builtURL)
    }

    /// Adds query items to a URL's text, before its fragment, with `&` or `?` as needed.
    static func appending(_ items: [QueryParameter], to text: String) -> String {
        guard !items.isEmpty else { return text }
        var base = Substring(text)
        var fragment = ""
        if let hash = base.firstIndex(of: "#") {
            fragment = String(base[hash...])
            base = base[..<hash]
        }
        let separator: String
        if let question = base.firstIndex(of: "?") {
            separator = base.index(after: question) == base.endIndex ? "" : "&"
        } else {
            separator = "?"
        }
        return String(base) + separator + items.queryText + fragment
    }

    /// A callback: a well-formed absolute URL, its host (if any) put in ASCII form. Whether its
    /// scheme and host are acceptable is ``CallbackPolicy``'s decision.
    static func callback(_ text: String, parameter: String) throws(LinkError) -> RawURL {
        var url = try RawURL(text, parameter: parameter)
        if let host = url.host, !host.unicodeScalars.allSatisfy(\.isASCII) {
            url.host = try HostName(host, parameter: parameter).ascii
        }
        return url
    }

    /// A Foundation `URL` whose text is exactly the checked text.
    static func foundationURL(_ url: RawURL, parameter: String) throws(LinkError) -> URL {
        let text = url.text
        guard let foundation = URL(string: text), foundation.absoluteString == text else {
            throw LinkError(parameter: parameter, problem: .malformedURL,
                            detail: "'\(RawURL.excerpt(text))' is not a URL Foundation reads unchanged",
                            accepted: "an RFC 3986 URL")
        }
        return foundation
    }
}
