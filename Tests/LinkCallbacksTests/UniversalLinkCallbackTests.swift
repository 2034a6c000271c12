import Foundation
import Testing
@testable import LinkCallbacks

@Suite(.timeLimit(.minutes(5))) struct UniversalLinkCallbackTests {
    static let seedExample = "https://appb.companyb.com/logout?ulc-success=https%3A%2F%2Fappa.com%2Fsuccess&ulc-error=https%3A%2F%2Fappa.com%2Ferror"

    @Test func seedExampleParsesIntoActionAndDecodedCallbacks() throws {
        let ulc = try UniversalLinkCallback(parsing: Self.seedExample)
        #expect(ulc.action.absoluteString == "https://appb.companyb.com/logout")
        #expect(ulc.success.absoluteString == "https://appa.com/success")
        #expect(ulc.error.absoluteString == "https://appa.com/error")
        #expect(ulc.text == Self.seedExample)
    }

    @Test func actionKeepsItsOwnQueryInOrder() throws {
        let ulc = try UniversalLinkCallback(parsing: "https://b.com/logout?force=1&ulc-success=https%3A%2F%2Fa.com%2Fok&mode=x&ulc-error=https%3A%2F%2Fa.com%2Ferr")
        #expect(ulc.action.absoluteString == "https://b.com/logout?force=1&mode=x")
    }

    @Test func buildAppendsToAnExistingQueryWithAmpersand() throws {
        let ulc = try UniversalLinkCallback(actionText: "https://b.com/logout?force=1", successText: "https://a.com/ok", errorText: "https://a.com/err")
        #expect(ulc.text == "https://b.com/logout?force=1&ulc-success=https%3A%2F%2Fa.com%2Fok&ulc-error=https%3A%2F%2Fa.com%2Ferr")
    }

    @Test func buildPutsTheQueryBeforeTheActionsFragment() throws {
        let ulc = try UniversalLinkCallback(actionText: "https://b.com/logout#top", successText: "https://a.com/ok", errorText: "https://a.com/err")
        #expect(ulc.text.hasSuffix("&ulc-error=https%3A%2F%2Fa.com%2Ferr#top"))
        #expect(try UniversalLinkCallback(parsing: ulc.text) == ulc)
    }

    @Test func nestedReservedCharactersSurviveTheRoundTrip() throws {
        let tricky = "https://a.com/cb?run=7&n=a%2Fb+c&x==#frag?&%"
        let success = try #require(URL(string: "https://a.com/cb?run=7&n=a%2Fb+c&x==#frag"))
        let ulc = try UniversalLinkCallback(action: URL(string: "https://b.com/logout")!, success: success, error: success)
        #expect(!ulc.text.dropFirst("https://b.com/logout?".count).contains("&n="))
        #expect(ulc.text.contains("%2B"))  // '+' is encoded, never read as a space
        #expect(try UniversalLinkCallback(parsing: ulc.text).success == success)
        _ = tricky
    }

    @Test func ulcFailureIsReadAsUlcErrorAndWrittenAsUlcError() throws {
        let ulc = try UniversalLinkCallback(parsing: "https://b.com/logout?ulc-success=https%3A%2F%2Fa.com%2Fok&ulc-failure=https%3A%2F%2Fa.com%2Ffail")
        #expect(ulc.error.absoluteString == "https://a.com/fail")
        #expect(ulc.text.contains("ulc-error="))
        #expect(!ulc.text.contains("ulc-failure"))
    }

    @Test func bothUlcErrorAndUlcFailureIsADuplicate() {
        #expect(throws: LinkError.self) {
            try UniversalLinkCallback(parsing: "https://b.com/l?ulc-success=https%3A%2F%2Fa.com&ulc-error=https%3A%2F%2Fa.com%2Fe&ulc-failure=https%3A%2F%2Fa.com%2Ff")
        }
        do {
            _ = try UniversalLinkCallback(parsing: "https://b.com/l?ulc-success=https%3A%2F%2Fa.com&ulc-error=https%3A%2F%2Fa.com%2Fe&ulc-failure=https%3A%2F%2Fa.com%2Ff")
        } catch {
            #expect(error.problem == .duplicateParameter)
            #expect(error.description.contains("ulc-error"))
        }
    }

    @Test func missingUlcErrorIsNamed() {
        #expect(throws: LinkError(parameter: "ulc-error", problem: .missingParameter, detail: "the link has no ulc-error",
                                  accepted: "a ULC with both ulc-success and ulc-error (ulc-failure is read as ulc-error)")) {
            try UniversalLinkCallback(parsing: "https://b.com/l?ulc-success=https%3A%2F%2Fa.com%2Fok")
        }
    }

    @Test func emptyCallbackValueIsRefused() {
        #expect(throws: LinkError.self) {
            try UniversalLinkCallback(parsing: "https://b.com/l?ulc-success=&ulc-error=https%3A%2F%2Fa.com%2Fe")
        }
    }

    @Test func malformedPercentEncodingInACallbackIsRefused() {
        do {
            _ = try UniversalLinkCallback(parsing: "https://b.com/l?ulc-success=https%3A%2F%2Fa.com%2F%zz&ulc-error=https%3A%2F%2Fa.com%2Fe")
            Issue.record("accepted")
        } catch {
            #expect(error.problem == .invalidPercentEncoding)
        }
    }

    @Test func anActionThatAlreadyCarriesAUlcParameterIsRefused() {
        #expect(throws: LinkError.self) {
            try UniversalLinkCallback(actionText: "https://b.com/l?ulc-ts=5", successText: "https://a.com", errorText: "https://a.com")
        }
    }

    @Test func anEmptyActionQueryIsDroppedSoTheRoundTripHolds() throws {
        let ulc = try UniversalLinkCallback(actionText: "https://b.com/logout?", successText: "https://a.com/ok", errorText: "https://a.com/e")
        #expect(ulc.action.absoluteString == "https://b.com/logout")
        #expect(try UniversalLinkCallback(parsing: ulc.text) == ulc)
    }

    @Test func signedFieldsRoundTripAndUnsignedDropsThem() throws {
        let ulc = try UniversalLinkCallback(actionText: "https://b.com/l", successText: "https://a.com/ok", errorText: "https://a.com/e",
                                            timestamp: 1_700_000_000, signature: "AAEC")
        let parsed = try UniversalLinkCallback(parsing: ulc.text)
        #expect(parsed.timestamp == 1_700_000_000)
        #expect(parsed.signature == "AAEC")
        #expect(parsed.unsigned.text == "https://b.com/l?ulc-success=https%3A%2F%2Fa.com%2Fok&ulc-error=https%3A%2F%2Fa.com%2Fe")
    }

    @Test func aUnicodeCallbackHostIsStoredInItsASCIIForm() throws {
        let ulc = try UniversalLinkCallback(parsing: "https://b.com/l?ulc-success=https%3A%2F%2F%D0%B0ppa.com%2Fok&ulc-error=https%3A%2F%2Fappa.com%2Fe")
        #expect(ulc.success.absoluteString == "https://xn--ppa-5cd.com/ok")
    }
}
