import Foundation
import Testing
import HandoverPages

/// The page an out-of-band link shows in a browser.
@Suite struct OpenOnPhonePageTests {
    @Test func itSaysNothingReachedTheServer() {
        let html = OpenOnPhonePage.page.html
        #expect(html.contains("<h1>Open this on your phone</h1>"))
        #expect(html.contains("Nothing was sent to the server: the request stays in the part of the link after #."))
    }
}
