import Foundation

/// A link that carries an operation's payload to the phone.
///
/// Two forms:
///
/// - a universal link, `https://<host>/<path>#p=<payload>` (the fragment keeps the payload out
///   of server logs when the link falls through to the browser; `?p=` in the query is read too);
/// - a custom-scheme x-callback-url link,
///   `<scheme>://x-callback-url/<action>?x-success=…&x-error=…&x-cancel=…&p=<payload>`, whose
///   targets the app checks against its allowlist.
///
/// The parameter `dispatchTokenResponse`, which one deployed system uses, is read as a synonym of `p`.
public struct OperationLink: Sendable, Hashable {
    public enum Form: Sendable, Hashable {
        /// An https (or loopback http) universal link; `base` is the link without the payload.
        case universalLink(base: URL)
        /// A custom-scheme x-callback-url link.
        case xCallback(scheme: String, action: String)
    }

    /// The parameter that carries the payload.
    public static let payloadParameter = "p"
    /// Read as a synonym of ``payloadParameter``.
    public static let legacyPayloadParameter = "dispatchTokenResponse"

    public var form: Form
    public var payload: OperationPayload
    /// `x-success`, `x-error` and `x-cancel` of an x-callback-url link; empty for a universal link.
    public var callbacks: CallbackTargets

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

    /// The link's text.
    public var text: String {
        switch form {
        case .universalLink(let base):
            var text = base.absoluteString
            if let cut = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = String(text[..<cut]) }
            return "\(text)#\(Self.payloadParameter)=\(payload.text)"
        case .xCallback(let scheme, let action):
            var items: [String] = []
            if let success = callbacks.success { items.append("x-success=\(LinkText.percentEncode(success.absoluteString))") }
            if let error = callbacks.error { items.append("x-error=\(LinkText.percentEncode(error.absoluteString))") }
            if let cancel = callbacks.cancel { items.append("x-cancel=\(LinkText.percentEncode(cancel.absoluteString))") }
            items.append("\(Self.payloadParameter)=\(payload.text)")
            return "\(scheme)://x-callback-url/\(LinkText.percentEncode(action))?\(items.joined(separator: "&"))"
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
        let link = try LinkText(text, field: "link")
        if link.host == "x-callback-url" {
            guard link.scheme != "https", link.scheme != "http" else {
                throw OutOfBandError(field: "link", problem: .malformedLink, detail: "an x-callback-url link uses the app's own scheme, not \(link.scheme)",
                                     accepted: LinkText.accepted)
            }
            let action = try LinkText.percentDecode(link.path.drop { $0 == "/" }, field: "action")
            guard !action.isEmpty, !action.contains("/") else {
                throw OutOfBandError(field: "action", problem: .invalidValue, detail: "the path '\(OutOfBandError.excerpt(link.path))' is not one action",
                                     accepted: "<scheme>://x-callback-url/<action>, such as oob or authenticate")
            }
            let items = try LinkText.parameters(link.query, field: "link")
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
            self.init(form: .xCallback(scheme: link.scheme, action: action), payload: try Self.payload(from: items), callbacks: callbacks)
        } else {
            guard link.scheme == "https" || link.scheme == "http" && link.isLoopback else {
                let detail = link.scheme == "http"
                    ? "the scheme is http, which only a loopback host may use"
                    : "a \(link.scheme) link must have the host x-callback-url"
                throw OutOfBandError(field: "link", problem: .malformedLink, detail: detail, accepted: LinkText.accepted)
            }
            let items = try LinkText.parameters(link.query, field: "link") + LinkText.parameters(link.fragment, field: "link")
            let port = link.port.map { ":\($0)" } ?? ""
            guard let base = URL(string: "\(link.scheme)://\(link.host)\(port)\(link.path)") else {
                throw OutOfBandError(field: "link", problem: .malformedLink, detail: "Foundation cannot read the link's base", accepted: LinkText.accepted)
            }
            self.init(form: .universalLink(base: base), payload: try Self.payload(from: items))
        }
    }

    private static func payload(from items: [(name: String, value: String)]) throws(OutOfBandError) -> OperationPayload {
        let values = items.filter { $0.name == payloadParameter || $0.name == legacyPayloadParameter }
        guard let first = values.first else {
            throw OutOfBandError(field: payloadParameter, problem: .missing, detail: "the link carries no payload",
                                 accepted: "p=<payload> in the fragment or the query")
        }
        guard values.count == 1 else {
            throw OutOfBandError(field: payloadParameter, problem: .duplicate, detail: "the payload appears \(values.count) times",
                                 accepted: "one p=<payload>")
        }
        return try OperationPayload(text: first.value, field: first.name)
    }
}

/// How an operation reached the phone, and what it carried.
public struct OperationDelivery: Sendable, Hashable {
    public enum Channel: String, Sendable, Hashable {
        case link
        case qrCode = "qr-code"
        case push
    }

    public var channel: Channel
    public var payload: OperationPayload
    /// The link's x-callback targets; empty for other channels.
    public var callbacks: CallbackTargets
    /// The link, when it came as one (or a QR code held one).
    public var link: OperationLink?

    public init(channel: Channel, payload: OperationPayload, callbacks: CallbackTargets = CallbackTargets(), link: OperationLink? = nil) {
        self.channel = channel
        self.payload = payload
        self.callbacks = callbacks
        self.link = link
    }

    /// From a link the app was opened with.
    public init(link url: URL) throws(OutOfBandError) {
        let link = try OperationLink(url: url)
        self.init(channel: .link, payload: link.payload, callbacks: link.callbacks, link: link)
    }

    /// From a scanned QR code: a link of either form, or a bare payload (`v1.…`). Surrounding
    /// white space, which some scanners add, is ignored.
    public init(qrText: String) throws(OutOfBandError) {
        let text = qrText.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("v"), !text.contains(":") {
            self.init(channel: .qrCode, payload: try OperationPayload(text: text, field: "qr"))
        } else {
            let link = try OperationLink(parsing: text)
            self.init(channel: .qrCode, payload: link.payload, callbacks: link.callbacks, link: link)
        }
    }

    /// From a push notification's `userInfo`: the string under `"op"`.
    public init(pushUserInfo userInfo: [AnyHashable: Any]) throws(OutOfBandError) {
        let key = OperationPush.payloadKey
        guard let value = userInfo[key] else {
            throw OutOfBandError(field: key, problem: .missing, detail: "the notification has no '\(key)' entry",
                                 accepted: #"a push {"aps":{…},"op":"v1.…"}"#)
        }
        guard let text = value as? String else {
            throw OutOfBandError(field: key, problem: .invalidValue, detail: "'\(key)' is a \(type(of: value)), not a string",
                                 accepted: "the payload text as a string")
        }
        self.init(channel: .push, payload: try OperationPayload(text: text, field: key))
    }
}
