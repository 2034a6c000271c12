import Foundation
import HandoverProtocol

/// The server's home page at `/`: what this server is, with links on to the dashboard, the
/// tester, the API description, the association file and (when the server issues its own
/// sessions) OpenID Connect discovery; a warning when devices reach it over plain http; and the
/// version.
package enum HomePage {
    /// How a person signs in to the dashboard, in words: with the organisation's account when
    /// `hasProvider` (and an admin key as break-glass when `allowsKeySignIn`), else with a key.
    package static func signInWords(hasProvider: Bool, allowsKeySignIn: Bool) -> String {
        guard hasProvider else { return "sign in with an API key (admin, operator or viewer)" }
        return "sign in with your organisation's account (its identity provider)"
            + (allowsKeySignIn ? "; an admin key opens it too, as break-glass" : "")
    }

    /// The page: `signInWords` from ``signInWords(hasProvider:allowsKeySignIn:)``; the OpenID
    /// Connect link when `advertisesOpenID`; `plainHTTPNotice` above the links when given.
    package static func page(signInWords: String, advertisesOpenID: Bool, plainHTTPNotice: String?) -> HTMLPage {
        let links: [(String, String, String)] = [
            ("/dashboard/sign-in", "Dashboard", "devices, logout runs, apps, webhooks and keys; " + signInWords),
            ("/tester", "ULC conformance tester", "check that an app logs out and calls back as the ULC specification asks"),
            ("/openapi.yaml", "API description", "the JSON API for launchers, IT tools and MDM, as OpenAPI 3"),
            ("/.well-known/apple-app-site-association", "Association file", "the universal links this server's apps claim"),
        ] + (advertisesOpenID ? [("/.well-known/openid-configuration", "OpenID Connect", "discovery for your backends: keys, introspection, revocation, back-channel logout")] : [])
        return HTMLPage(
            title: "Handover", heading: "Handover",
            paragraphs: ["This server signs shared phones' apps out when the phone changes hands, and shows IT that it happened for every device."],
            extra: .join([
                plainHTTPNotice.map { text in .element("p", ["id": "plain-http", "class": "error", "role": "note"]) { text } } ?? .empty,
                .element("ul") {
                    for (path, name, what) in links {
                        HTML.element("li") { HTML.element("a", ["href": path]) { name }; ": "; what }
                    }
                },
                .element("p", ["id": "version", "class": "note"]) { "Handover \(HandoverVersion.current)" },
            ]))
    }
}
