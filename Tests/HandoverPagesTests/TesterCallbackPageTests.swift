import Foundation
import Testing
import HandoverPages

/// The pages an app under test opens in a browser instead of answering the tester in the app.
@Suite struct TesterCallbackPageTests {
    @Test func eachAnswerSaysWhatHappened() {
        #expect(TesterCallbackPage.received("success").html.contains("<h1>The tester received the success callback.</h1>"))
        #expect(TesterCallbackPage.notWaiting.title == "Round not running")
        #expect(TesterCallbackPage.malformed.paragraphs == ["Check the link and try again."])
        #expect(TesterCallbackPage.unknown.paragraphs == ["It may belong to another test."])
    }
}
