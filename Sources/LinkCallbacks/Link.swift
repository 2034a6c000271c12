import Foundation

/// Any link this module reads, by kind.
///
/// ```swift
/// switch try Link(parsing: url.absoluteString) {
/// case .universalLinkCallback(let ulc): …   // log out, then open ulc.success
/// case .xCallback(let request): …           // run request.action
/// }
/// ```
///
/// The kind is decided by the parameters, not the scheme: `ulc-success` makes a ULC; the host
/// `x-callback-url` makes an x-callback request. So an `http:` ULC parses as a ULC, and
/// ``CallbackPolicy`` then refuses it for its scheme, with a reason.
///
/// An out-of-band link of the x-callback form (`dispatchTokenResponse` or `p` beside `x-success`…)
/// is judged here as the x-callback request it is; its payload, and the universal-link form,
/// are read by the `OutOfBand` module's `OperationLink`.
public enum Link: Equatable, Hashable, Sendable {
    case universalLinkCallback(UniversalLinkCallback)
    case xCallback(XCallbackRequest)

    /// The kinds, with the names the command line and JSON reports use.
    public enum Kind: String, Sendable, CaseIterable, Codable {
        case ulc
        case xCallback = "x-callback"

        /// The kind a link's text claims to be, without checking the rest of it; `nil` when the
        /// text is not a URL or claims no kind. Useful to report what a rejected link tried to be.
        public init?(claimedBy text: String) {
            guard let url = try? RawURL(text, parameter: "link") else { return nil }
            let names = Set(url.query?.split(separator: "&").map { item in
                PercentEncoding.decode(item.split(separator: "=", maxSplits: 1).first ?? "") ?? ""
            } ?? [])
            if names.contains("ulc-success") {
                self = .ulc
            } else if url.host?.lowercased() == "x-callback-url" {
                self = .xCallback
            } else {
                return nil
            }
        }
    }

    /// Reads a link, deciding its kind.
    public init(parsing text: String) throws(LinkError) {
        let url = try RawURL(text, parameter: "link")
        let names = Set(try url.queryParameters(parameter: "link").map(\.name))
        if names.contains("ulc-success") {
            self = .universalLinkCallback(try UniversalLinkCallback(parsed: url))
        } else if url.host?.lowercased() == "x-callback-url" {
            self = .xCallback(try XCallbackRequest(parsed: url))
        } else {
            let hint = names.contains("ulc-error") || names.contains("ulc-failure")
                ? "it has ulc-error but no ulc-success, which is what marks a ULC"
                : "it is not a ULC or an x-callback-url request"
            throw LinkError(parameter: "link", problem: .unrecognizedLink, detail: hint,
                            accepted: "https://…?ulc-success=…&ulc-error=…, or scheme://x-callback-url/action?…")
        }
    }

    /// The link's kind.
    public var kind: Kind {
        switch self {
        case .universalLinkCallback: .ulc
        case .xCallback: .xCallback
        }
    }

    /// The link's text.
    public var text: String {
        switch self {
        case .universalLinkCallback(let ulc): ulc.text
        case .xCallback(let request): request.text
        }
    }
}
