import Foundation
import Testing
import HandoverPages

/// The page a person lands on from the identity provider once signed in.
@Suite struct ProviderSignedInPageTests {
    @Test func itNamesThePersonEscapedAndGoesOn() {
        let html = ProviderSignedInPage.body(person: "Ada <ada@example.com>", permissions: "admin").rendered
        #expect(html.contains("Signed in as Ada &lt;ada@example.com&gt; (admin). "))
        #expect(html.contains(#"<a href="/dashboard" id="continue">Continue to the dashboard</a>"#))
        #expect(html.contains("<script>location.replace('/dashboard');</script>"))
    }
}
