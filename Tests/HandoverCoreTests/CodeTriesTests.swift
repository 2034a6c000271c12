@testable import HandoverCore
import Testing

/// The out-of-band sign-in's number-matching lock-out without a database (issue 65): two wrong
/// codes are refused with the tries left, the third fails the sign-in, and so does any later one
/// (two phones answering at once). The whole exchange is `OutOfBandOperationTests`'.
@Suite struct CodeTriesTests {
    @Test func threeWrongCodesAndTheSignInFails() {
        #expect(CodeTries.maximum == 3)
        #expect(CodeTries.verdict(afterWrong: 1) == .tryAgain(left: 2))
        #expect(CodeTries.verdict(afterWrong: 2) == .tryAgain(left: 1))
        #expect(CodeTries.verdict(afterWrong: 3) == .failed)
        #expect(CodeTries.verdict(afterWrong: 4) == .failed, "a count raced past the last try fails too")
    }
}
