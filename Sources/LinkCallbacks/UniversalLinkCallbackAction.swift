import Foundation

extension UniversalLinkCallback {
    /// An app's logout action, checked once, to which callbacks are added.
    ///
    /// ``UniversalLinkCallback/init(actionText:successText:errorText:timestamp:signature:)`` checks
    /// its action with this type. A server that writes many links to the same few actions (a
    /// logout run has one per app, and a shift change thousands of runs) checks each action once
    /// and builds every link's text with ``linkText(success:error:)``, without parsing the three
    /// URLs again.
    ///
    /// ```swift
    /// let action = try UniversalLinkCallback.Action("https://appb.example.com/logout?force=1")
    /// let link = action.linkText(success: "https://launcher.example.com/ok", error: "https://launcher.example.com/failed")
    /// ```
    public struct Action: Hashable, Sendable {
        /// The action as a Foundation URL (an empty query, `…/logout?`, dropped).
        public let url: URL

        /// Checks an action: a well-formed absolute URL with a host, whose query has no `ulc-`
        /// parameter of its own.
        public init(_ text: String) throws(LinkError) {
            var action = try RawURL(text, parameter: "action")
            guard action.host != nil else {
                throw LinkError(parameter: "action", problem: .malformedURL, detail: "the action has no host",
                                accepted: "an https URL such as https://app.example.com/logout")
            }
            if let reserved = try action.queryParameters(parameter: "action").first(where: { UniversalLinkCallback.reservedParameters.contains($0.name) }) {
                throw LinkError(parameter: "action", problem: .invalidValue,
                                detail: "the action already carries '\(reserved.name)'",
                                accepted: "an action whose own query has no ulc- parameter")
            }
            if action.query == "" { action.query = nil }
            url = try UniversalLinkCallback.foundationURL(action, parameter: "action")
        }

        /// The unsigned link's text for two callbacks: the same text as
        /// `UniversalLinkCallback(actionText:successText:errorText:).text`, built without
        /// checking the callbacks.
        ///
        /// - Precondition: `success` and `error` are absolute URLs in the form that ULC keeps
        ///   them: an ASCII host, and text that Foundation's `URL` reads unchanged. A server's own
        ///   callback URLs are; for anything received, use the checking initializer.
        public func linkText(success: String, error: String) -> String {
            UniversalLinkCallback.appending([QueryParameter(name: "ulc-success", value: success),
                                              QueryParameter(name: "ulc-error", value: error)], to: url.absoluteString)
        }
    }
}
