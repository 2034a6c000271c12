import Foundation
import HandoverCore
import HandoverProtocol
import Testing
import HandoverPages

/// The browser fallback of a run's callback link, and the tester's callback pages.
@Suite struct CallbackPageTests {
    @Test func anAppsNameIsEscaped() {
        let html = CallbackPage.signedOut("<script>Mail</script>").html
        #expect(html.contains("<h1>Signed out of &lt;script&gt;Mail&lt;/script&gt;.</h1>"))
        #expect(!html.contains("<script>"))
    }

    @Test func anAlreadyRecordedItemSaysItsStateInWords() {
        let html = CallbackPage.alreadyRecorded("Mail", status: .timedOut).html
        #expect(html.contains("<title>Already recorded</title>"))
        #expect(html.contains("Mail&#39;s sign-out is recorded as timed out; nothing changed."))
    }

    @Test func badLinksSayWhatToDo() {
        #expect(CallbackPage.malformed.paragraphs == ["Return to the launcher; it will try again."])
        #expect(CallbackPage.unknown.heading == "This sign-out link is not valid.")
        #expect(CallbackPage.signOutFailed("Mail").heading == "Mail could not sign out.")
    }
}
