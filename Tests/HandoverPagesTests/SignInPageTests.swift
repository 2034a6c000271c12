import Foundation
import HandoverCore
import HandoverPages
import Testing

/// The dashboard's sign-in page, rendered from plain values.
@Suite struct SignInPageTests {
    @Test func withoutAProviderAKeyOfAnyRoleSignsIn() {
        let html = SignInPage.body(message: nil, csrfToken: "t", hasProvider: false, allowsKeySignIn: true,
                                   limits: SessionLimits(idle: 15 * 60, absolute: 12 * 3600)).rendered
        #expect(html.contains("API key (admin, operator or viewer)"))
        #expect(!html.contains("/dashboard/sign-in/provider"))
        #expect(html.contains("A session ends after 15 minutes without a request, and 12 hours after sign-in."))
        #expect(html.contains("<input type=\"hidden\" name=\"csrf\" value=\"t\">"))
    }

    @Test func withAProviderOnlyItsButtonUnlessBreakGlassIsAllowed() {
        let provider = SignInPage.body(message: "<script>no</script>", csrfToken: "t", hasProvider: true, allowsKeySignIn: false,
                                       limits: SessionLimits()).rendered
        #expect(provider.contains("Sign in with your organisation"))
        #expect(!provider.contains("<form"))
        #expect(provider.contains("<p class=\"error\">&lt;script&gt;no&lt;/script&gt;</p>"))
        let breakGlass = SignInPage.body(message: nil, csrfToken: "t", hasProvider: true, allowsKeySignIn: true, limits: SessionLimits()).rendered
        #expect(breakGlass.contains("Break-glass"))
        #expect(breakGlass.contains("Admin key"))
    }
}
