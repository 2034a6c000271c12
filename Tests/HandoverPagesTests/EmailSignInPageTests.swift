import Foundation
import Testing
import HandoverPages

/// The pages of an email sign-in link opened in a browser.
@Suite struct EmailSignInPageTests {
    @Test func theConfirmationPostsTheTokenBackAndEscapesTheAddress() {
        let html = EmailSignInPage.confirm(email: "<script>@example.com", token: "tok\"en").html
        #expect(html.contains("<h1>Sign in as &lt;script&gt;@example.com</h1>"))
        #expect(html.contains(#"<form method="post" action="/auth/email/verify"><input type="hidden" name="token" value="tok&quot;en">"#))
    }

    @Test func theOtherPagesSayWhatHappened() {
        #expect(EmailSignInPage.signedIn(email: "ada@example.com").paragraphs == ["You are signed in on this browser as ada@example.com. You can close this page."])
        #expect(EmailSignInPage.tooManyAttempts(wait: 42).html.contains("Try again in 42 seconds."))
        #expect(EmailSignInPage.expired.heading == "This link no longer works")
        #expect(EmailSignInPage.otherSite.title == "Not signed in")
    }
}
