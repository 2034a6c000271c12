import Foundation

/// An x-callback-url 1.0 request: `scheme://x-callback-url/action?x-source=…&x-success=…&x-error=…&x-cancel=…&…`.
///
/// The `x-` parameters say where to go afterwards; every other parameter belongs to the action.
/// The reply builders add results to the right target, before its fragment and after any query
/// it already has:
///
/// ```swift
/// let request = try XCallbackRequest(parsing: "notes://x-callback-url/add?text=hi&x-success=launcher%3A%2F%2Fx-callback-url%2Fdone")
/// request.action                                    // "add"
/// request.successReply(["id": "42"])                // launcher://x-callback-url/done?id=42
/// request.errorReply(code: 3, message: "Disk full") // nil: no x-error was given
/// ```
public struct XCallbackRequest: Equatable, Hashable, Sendable {
    /// The receiving app's URL scheme (`notes`).
    public var scheme: String
    /// The action, the path after `x-callback-url/` (`add`).
    public var action: String
    /// `x-source`: the caller's display name.
    public var source: String?
    /// `x-success`: opened with result parameters after success.
    public var success: URL?
    /// `x-error`: opened with `errorCode` and `errorMessage` after a failure.
    public var error: URL?
    /// `x-cancel`: opened when the user cancels.
    public var cancel: URL?
    /// The action's own parameters, decoded, in order.
    public var parameters: [QueryParameter]

    /// The `x-` names this module reads; others starting with `x-` stay in ``parameters``.
    public static let callbackParameters = ["x-source", "x-success", "x-error", "x-cancel"]

    /// Makes a request from its parts.
    public init(scheme: String, action: String, source: String? = nil, success: URL? = nil, error: URL? = nil,
                cancel: URL? = nil, parameters: [QueryParameter] = []) throws(LinkError) {
        let lowered = scheme.lowercased()
        guard let first = lowered.unicodeScalars.first, first.isASCIILetter,
              lowered.unicodeScalars.allSatisfy({ $0.isASCIILetter || $0.isASCIIDigit || "+-.".unicodeScalars.contains($0) }),
              lowered != "http", lowered != "https" else {
            throw LinkError(parameter: "scheme", problem: .disallowedScheme, detail: "'\(RawURL.excerpt(scheme))' is not an app's custom scheme",
                            accepted: "a custom scheme such as notes (letters, digits, '+', '-', '.')")
        }
        guard !action.isEmpty, action.unicodeScalars.allSatisfy({
            $0.isASCIILetter || $0.isASCIIDigit || "-._~/!$'()*+,;=:@".unicodeScalars.contains($0)
        }), !action.hasPrefix("/") else {
            throw LinkError(parameter: "action", problem: .invalidValue, detail: "'\(RawURL.excerpt(action))' is not an action name",
                            accepted: "a non-empty path such as add or notes/add")
        }
        if let reserved = parameters.first(where: { Self.callbackParameters.contains($0.name) }) {
            throw LinkError(parameter: reserved.name, problem: .invalidValue, detail: "'\(reserved.name)' is given as an action parameter",
                            accepted: "x-source, x-success, x-error and x-cancel as their own fields")
        }
        self.scheme = scheme
        self.action = action
        self.source = source
        for (name, url) in [("x-success", success), ("x-error", error), ("x-cancel", cancel)] {
            if let url { _ = try RawURL(url.absoluteString, parameter: name) }
        }
        self.success = success
        self.error = error
        self.cancel = cancel
        self.parameters = parameters
    }

    /// Reads a request from a link's text.
    public init(parsing text: String) throws(LinkError) {
        try self.init(parsed: try RawURL(text, parameter: "link"))
    }

    init(parsed url: RawURL) throws(LinkError) {
        guard url.host?.lowercased() == "x-callback-url", url.userInfo == nil, url.port == nil else {
            throw LinkError(parameter: "link", problem: .unrecognizedLink, detail: "the host is not x-callback-url",
                            accepted: "scheme://x-callback-url/action?…")
        }
        var found: [String: String] = [:]
        var parameters: [QueryParameter] = []
        for item in try url.queryParameters(parameter: "link") {
            guard Self.callbackParameters.contains(item.name) else {
                parameters.append(item)
                continue
            }
            guard found[item.name] == nil else {
                throw LinkError(parameter: item.name, problem: .duplicateParameter, detail: "'\(item.name)' appears twice",
                                accepted: "each x- parameter at most once")
            }
            found[item.name] = item.value ?? ""
        }
        func target(_ name: String) throws(LinkError) -> URL? {
            guard let text = found[name] else { return nil }
            guard !text.isEmpty else {
                throw LinkError(parameter: name, problem: .invalidValue, detail: "the value is empty", accepted: "a percent-encoded URL")
            }
            var raw = try RawURL(text, parameter: name)
            if let host = raw.host, !host.unicodeScalars.allSatisfy(\.isASCII) {
                raw.host = try HostName(host, parameter: name).ascii
            }
            return try UniversalLinkCallback.foundationURL(raw, parameter: name)
        }
        guard let action = PercentEncoding.decode(url.path.dropFirst()) else {
            throw LinkError(parameter: "action", problem: .invalidPercentEncoding, detail: "the action is not valid percent-encoded UTF-8",
                            accepted: "an action name such as add")
        }
        try self.init(scheme: url.scheme, action: action, source: found["x-source"], success: try target("x-success"),
                      error: try target("x-error"), cancel: try target("x-cancel"), parameters: parameters)
    }

    /// The request's text: `x-` parameters first, then the action's parameters.
    public var text: String {
        var items: [QueryParameter] = []
        if let source { items.append(QueryParameter(name: "x-source", value: source)) }
        if let success { items.append(QueryParameter(name: "x-success", value: success.absoluteString)) }
        if let error { items.append(QueryParameter(name: "x-error", value: error.absoluteString)) }
        if let cancel { items.append(QueryParameter(name: "x-cancel", value: cancel.absoluteString)) }
        items += parameters
        let path = action.split(separator: "/", omittingEmptySubsequences: false)
            .map { PercentEncoding.encodeUnreserved(String($0)) }.joined(separator: "/")
        return UniversalLinkCallback.appending(items, to: "\(scheme)://x-callback-url/\(path)")
    }

    /// The request as a URL; see ``text``.
    public var url: URL? { URL(string: text) }

    /// The value of the first action parameter called `name`.
    public func parameter(_ name: String) -> String? {
        parameters.first(where: { $0.name == name })?.value
    }

    /// `x-success` with the result parameters added, or `nil` when there is no `x-success`.
    public func successReply(_ results: KeyValuePairs<String, String> = [:]) -> URL? {
        success.flatMap { Self.reply(to: $0, results.map { QueryParameter(name: $0.key, value: $0.value) }) }
    }

    /// `x-error` with `errorCode` and `errorMessage` added, or `nil` when there is no `x-error`.
    public func errorReply(code: Int, message: String) -> URL? {
        error.flatMap {
            Self.reply(to: $0, [QueryParameter(name: "errorCode", value: String(code)),
                                QueryParameter(name: "errorMessage", value: message)])
        }
    }

    /// `x-cancel` as given, or `nil` when there is none.
    public func cancelReply() -> URL? { cancel }

    /// Adds `items` to a reply target's query, before its fragment.
    public static func reply(to target: URL, _ items: [QueryParameter]) -> URL? {
        URL(string: UniversalLinkCallback.appending(items, to: target.absoluteString))
    }
}
