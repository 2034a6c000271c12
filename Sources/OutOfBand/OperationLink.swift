import Foundation
import LinkCallbacks

/// The one out-of-band link: a link that carries an operation's payload to the phone.
///
/// Two forms:
///
/// - a universal link, `https://<host>/<path>#p=<payload>` (the fragment keeps the payload out
///   of server logs when the link falls through to the browser; `?p=` in the query is read too);
/// - a custom-scheme x-callback-url link,
///   `<scheme>://x-callback-url/<action>?x-success=…&x-error=…&x-cancel=…&p=<payload>`, whose
///   targets the app checks against its allowlist.
///
/// Two payloads, each read and written in its own parameter:
///
/// - Handover's `v1.` payloads (``OperationPayload/plain(json:)``, ``OperationPayload/sealed(keyID:encapsulatedKey:ciphertext:)``)
///   in `p`;
/// - the source documents' envelope (seed 004, ``OperationPayload/dispatchToken(_:)``) in
///   `dispatchTokenResponse`, in the query: `https://<base>/<path>?dispatchTokenResponse=<base64url JSON>`.
///   The base of such a universal link keeps its other query parameters, as that system writes them.
///
/// `dispatchTokenResponse` holding a `v1.` payload is read too, as a synonym of `p`.
///
/// Links are read with `LinkCallbacks.RawURL`, the one strict URL reader; every refusal is an
/// ``OutOfBandError`` that names the parameter at fault.
public struct OperationLink: Sendable, Hashable {
    /// Where the link points and how it asks to return.
    public enum Form: Sendable, Hashable {
        /// An https (or loopback http) universal link; `base` is the link without the payload
        /// (and, for a `v1.` payload, without query or fragment).
        case universalLink(base: URL)
        /// A custom-scheme x-callback-url link.
        case xCallback(scheme: String, action: String)
    }

    /// The parameter that carries a `v1.` payload.
    public static let payloadParameter = "p"
    /// The parameter that carries the source documents' envelope (and is read as a synonym of
    /// ``payloadParameter`` when it holds a `v1.` payload).
    public static let dispatchTokenParameter = "dispatchTokenResponse"

    /// What the link asks for, in which form.
    public var form: Form
    /// The payload: a `v1.` payload or the source documents' envelope.
    public var payload: OperationPayload
    /// `x-success`, `x-error` and `x-cancel` of an x-callback-url link; empty for a universal link.
    public var callbacks: CallbackTargets

    /// What the reader accepts, for its errors.
    static let accepted = "https://<host>/<path>#p=<payload> (or ?p=, or ?dispatchTokenResponse=), or <scheme>://x-callback-url/<action>?p=<payload>"

    /// Makes a link from its parts.
    public init(form: Form, payload: OperationPayload, callbacks: CallbackTargets = CallbackTargets()) {
        self.form = form
        self.payload = payload
        self.callbacks = callbacks
    }

    /// A universal link: `base` (its query and fragment dropped) with `#p=<payload>`.
    public static func universalLink(base: URL, payload: OperationPayload) -> OperationLink {
        OperationLink(form: .universalLink(base: base), payload: payload)
    }

    /// An x-callback-url link for the app's `scheme`.
    public static func xCallback(scheme: String, action: String = "oob", payload: OperationPayload,
                                 callbacks: CallbackTargets = CallbackTargets()) -> OperationLink {
        OperationLink(form: .xCallback(scheme: scheme.lowercased(), action: action), payload: payload, callbacks: callbacks)
    }

    /// The link's text: a `v1.` payload goes last in `p` (in the fragment of a universal link), the
    /// source documents' envelope last in `dispatchTokenResponse` (in the query).
    public var text: String {
        let item: String
        if case .dispatchToken = payload {
            item = "\(Self.dispatchTokenParameter)=\(payload.text)"
        } else {
            item = "\(Self.payloadParameter)=\(payload.text)"
        }
        switch form {
        case .universalLink(let base):
            var text = base.absoluteString
            if case .dispatchToken = payload {
                if let cut = text.firstIndex(of: "#") { text = String(text[..<cut]) }
                let separator = !text.contains("?") ? "?" : text.hasSuffix("?") ? "" : "&"
                return text + separator + item
            }
            if let cut = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = String(text[..<cut]) }
            return "\(text)#\(item)"
        case .xCallback(let scheme, let action):
            var items: [String] = []
            if let success = callbacks.success { items.append("x-success=\(PercentEncoding.encodeUnreserved(success.absoluteString))") }
            if let error = callbacks.error { items.append("x-error=\(PercentEncoding.encodeUnreserved(error.absoluteString))") }
            if let cancel = callbacks.cancel { items.append("x-cancel=\(PercentEncoding.encodeUnreserved(cancel.absoluteString))") }
            items.append(item)
            return "\(scheme)://x-callback-url/\(PercentEncoding.encodeUnreserved(action))?\(items.joined(separator: "&"))"
        }
    }

    /// The link as a Foundation URL.
    public var url: URL? { URL(string: text) }

    /// Reads a link.
    public init(url: URL) throws(OutOfBandError) {
        try self.init(parsing: url.absoluteString)
    }

    /// Reads a link's text.
    public init(parsing text: String) throws(OutOfBandError) {
        let link = try URLRules.link(text, field: "link", accepted: Self.accepted)
        let scheme = link.lowercasedScheme
        let host = link.host?.lowercased() ?? ""
        if host == "x-callback-url" {
            guard scheme != "https", scheme != "http" else {
                throw OutOfBandError(field: "link", problem: .malformedLink, detail: "an x-callback-url link uses the app's own scheme, not \(scheme)",
                                     accepted: Self.accepted)
            }
            let action = try URLRules.decoded(link.path.drop { $0 == "/" }, field: "action")
            guard !action.isEmpty, !action.contains("/") else {
                throw OutOfBandError(field: "action", problem: .invalidValue, detail: "the path '\(OutOfBandError.excerpt(link.path))' is not one action",
                                     accepted: "<scheme>://x-callback-url/<action>, such as oob or authenticate")
            }
            let items = try URLRules.parameters(of: link, field: "link")
            var callbacks = CallbackTargets()
            for (name, keyPath) in [("x-success", \CallbackTargets.success), ("x-error", \.error), ("x-cancel", \.cancel)] {
                let values = items.filter { $0.name == name }
                guard values.count <= 1 else {
                    throw OutOfBandError(field: name, problem: .duplicate, detail: "'\(name)' appears \(values.count) times", accepted: "at most one \(name)")
                }
                if let value = values.first?.value {
                    callbacks[keyPath: keyPath] = try URLRules.callbackTarget(value, field: name)
                }
            }
            self.init(form: .xCallback(scheme: scheme, action: action), payload: try Self.payload(from: items), callbacks: callbacks)
        } else {
            guard scheme == "https" || scheme == "http" && URLRules.isLoopback(link) else {
                let detail = scheme == "http"
                    ? "the scheme is http, which only a loopback host may use"
                    : "a \(scheme) link must have the host x-callback-url"
                throw OutOfBandError(field: "link", problem: .malformedLink, detail: detail, accepted: Self.accepted)
            }
            let payload = try Self.payload(from: URLRules.parameters(of: link, field: "link"))
            let port = link.port.map { ":\($0)" } ?? ""
            var baseText = "\(scheme)://\(host)\(port)\(link.path)"
            if case .dispatchToken = payload, let query = link.query {
                // The source documents' base keeps its other query parameters, as written.
                let rest = query.split(separator: "&").filter { item in
                    let name = PercentEncoding.decode(item.prefix { $0 != "=" }) ?? ""
                    return name != Self.payloadParameter && name != Self.dispatchTokenParameter
                }
                if !rest.isEmpty { baseText += "?" + rest.joined(separator: "&") }
            }
            guard let base = URL(string: baseText) else {
                throw OutOfBandError(field: "link", problem: .malformedLink, detail: "Foundation cannot read the link's base", accepted: Self.accepted)
            }
            self.init(form: .universalLink(base: base), payload: payload)
        }
    }

    private static func payload(from items: [(name: String, value: String)]) throws(OutOfBandError) -> OperationPayload {
        let values = items.filter { $0.name == payloadParameter || $0.name == dispatchTokenParameter }
        guard let first = values.first else {
            throw OutOfBandError(field: payloadParameter, problem: .missing, detail: "the link carries no payload",
                                 accepted: "p=<payload> in the fragment or the query")
        }
        guard values.count == 1 else {
            throw OutOfBandError(field: payloadParameter, problem: .duplicate, detail: "the payload appears \(values.count) times",
                                 accepted: "one p=<payload>")
        }
        if first.name == dispatchTokenParameter {
            return try OperationPayload(dispatchTokenResponse: first.value, field: first.name)
        }
        return try OperationPayload(text: first.value, field: first.name)
    }
}

