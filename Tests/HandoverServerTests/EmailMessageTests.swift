@testable import HandoverServer
import Mail
import Testing

/// The message the server mails: no header can be split by a line break, whatever it holds.
@Suite(.timeLimit(.minutes(5))) struct EmailMessageTests {
    /// "\r\n" is one Character in Swift, equal to neither "\r" nor "\n": a filter on Characters
    /// let it through (found with the CSV writer's property test), so a header could be split.
    @Test(arguments: ["ops@example.com\r\nBcc: all@example.com", "ops@example.com\nBcc: x", "ops@example.com\rBcc: x"])
    func aLineBreakCannotStartANewHeader(address: String) {
        let message = EmailMessage(to: address, subject: "Sign in\r\nX-Evil: 1", body: "hello")
        let headers = message.lines(from: "Handover <no-reply@handover.test>\r\nBcc: x").prefix { !$0.isEmpty }
        #expect(headers.count == 8, "\(headers)")
        #expect(headers.allSatisfy { !$0.unicodeScalars.contains("\r") && !$0.unicodeScalars.contains("\n") })
        #expect(!headers.contains { $0.hasPrefix("Bcc:") || $0.hasPrefix("X-Evil:") })
    }
}
