import Foundation

/// The dashboard page a person lands on from the organisation's identity provider once signed
/// in: who they are and their role, a link on, and a script that goes on to the overview. A page,
/// not a redirect: the browser arrived from the provider's site, and a SameSite=Strict cookie set
/// now is sent only on a navigation this site starts.
package enum ProviderSignedInPage {
    /// The page's title.
    package static let title = "Signed in"

    /// The body: `person` as the sign-in describes them, with their `permissions` in words.
    @HTMLBuilder
    package static func body(person: String, permissions: String) -> HTML {
        HTML.element("p") {
            "Signed in as \(person) (\(permissions)). "
            HTML.element("a", ["href": "/dashboard", "id": "continue"]) { "Continue to the dashboard" }
        }
        HTML.element("script") { HTML.raw("location.replace('/dashboard');") }
    }
}
