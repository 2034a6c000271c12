import Foundation

/// A link that carries an out-of-band operation to the phone: a payload in `dispatchTokenResponse`.
///
/// Two forms exist:
/// - a universal link, `https://<base>/<path>?dispatchTokenResponse=<base64url payload>`;
/// - a custom-scheme x-callback-url link,
///   `<scheme>://x-callback-url/authenticate?x-success=…&x-error=…&x-cancel=…&dispatchTokenResponse=…`,
///   whose targets the app must check against its allowlist (``CallbackPolicy``).
///
/// The payload is base64url without padding; anything else is refused.
public struct OutOfBandLink: Equatable, Hashable, Sendable {
    /// Where the link points and how it asks to return.
    public enum Form: Equatable, Hashable, Sendable {
        /// An https universal link; `base` is the link without `dispatchTokenResponse`.
        case universalLink(base: URL)
        /// A custom-scheme x-callback-url request; its parameters exclude `dispatchTokenResponse`.
        case xCallback(XCallbackRequest)
    }

    /// The name of the query parameter that carries the payload.
    public static let payloadParameter = "dispatchTokenResponse"

    /// The link's form.
    public var form: Form
    /// The payload's bytes, decoded from base64url.
    public var payload: Data

    /// Makes a link from its form and payload.
    public init(form: Form, payload: Data) {
        self.form = form
        self.payload = payload
    }

    /// Reads an out-of-band link from its text.
    public init(parsing text: String) throws(LinkError) {
        try self.init(parsed: try RawURL(text, parameter: "link"))
    }

    init(parsed url: RawURL) throws(LinkError) {
        if url.host?.lowercased() == "x-callback-url" {
            var request = try XCallbackRequest(parsed: url)
            let payloads = request.parameters.filter { $0.name == Self.payloadParameter }
            request.parameters.removeAll { $0.name == Self.payloadParameter }
            self.init(form: .xCallback(request), payload: try Self.payload(payloads))
        } else {
            var base = url
            let items = try url.queryParameters(parameter: "link")
            let payloads = items.filter { $0.name == Self.payloadParameter }
            let rest = items.filter { $0.name != Self.payloadParameter }
            base.query = rest.isEmpty ? nil : rest.queryText
            guard base.host != nil else {
                throw LinkError(parameter: "link", problem: .malformedURL, detail: "the link has no host",
                                accepted: "https://<base>/<path>?dispatchTokenResponse=…")
            }
            self.init(form: .universalLink(base: try UniversalLinkCallback.foundationURL(base, parameter: "link")),
                      payload: try Self.payload(payloads))
        }
    }

    private static func payload(_ items: [QueryParameter]) throws(LinkError) -> Data {
        guard let item = items.first else {
            throw LinkError(parameter: payloadParameter, problem: .missingParameter, detail: "the link has no payload",
                            accepted: "dispatchTokenResponse=<base64url payload>")
        }
        guard items.count == 1 else {
            throw LinkError(parameter: payloadParameter, problem: .duplicateParameter, detail: "'\(payloadParameter)' appears \(items.count) times",
                            accepted: "one payload")
        }
        let payload = try Base64URL.decode(item.value ?? "", parameter: payloadParameter)
        guard !payload.isEmpty else {
            throw LinkError(parameter: payloadParameter, problem: .invalidValue, detail: "the payload is empty",
                            accepted: "a non-empty base64url payload")
        }
        return payload
    }

    /// The link's text, with the payload last.
    public var text: String {
        let item = QueryParameter(name: Self.payloadParameter, value: nil)
        let payloadItem = QueryParameter(name: item.name, value: nil, raw: "\(Self.payloadParameter)=\(Base64URL.encode(payload))")
        switch form {
        case .universalLink(let base):
            return UniversalLinkCallback.appending([payloadItem], to: base.absoluteString)
        case .xCallback(let request):
            return UniversalLinkCallback.appending([payloadItem], to: request.text)
        }
    }

    /// The payload read as the JSON envelope that one deployed system uses.
    public func envelope() throws(LinkError) -> OutOfBandEnvelope {
        try OutOfBandEnvelope(json: payload)
    }
}
