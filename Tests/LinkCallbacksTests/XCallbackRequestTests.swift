import Foundation
import Testing
@testable import LinkCallbacks

@Suite(.timeLimit(.minutes(5))) struct XCallbackRequestTests {
    @Test func requestReadsActionTargetsAndParameters() throws {
        let request = try XCallbackRequest(parsing: "notes://x-callback-url/add?x-source=Launcher&x-success=launcher%3A%2F%2Fx-callback-url%2Fdone&x-error=https%3A%2F%2Fl.com%2Ferr&text=hello%20world&tag=a&tag=b")
        #expect(request.scheme == "notes")
        #expect(request.action == "add")
        #expect(request.source == "Launcher")
        #expect(request.success?.absoluteString == "launcher://x-callback-url/done")
        #expect(request.error?.absoluteString == "https://l.com/err")
        #expect(request.cancel == nil)
        #expect(request.parameters.map(\.name) == ["text", "tag", "tag"])
        #expect(request.parameter("text") == "hello world")
    }

    @Test func successReplyAppendsResultsToATargetWithAQuery() throws {
        let request = try XCallbackRequest(scheme: "notes", action: "add", success: URL(string: "https://l.com/done?run=7#end"))
        #expect(request.successReply(["id": "42", "name": "a&b"])?.absoluteString == "https://l.com/done?run=7&id=42&name=a%26b#end")
    }

    @Test func errorReplyAppendsCodeAndMessageAfterAnExistingQuery() throws {
        let request = try XCallbackRequest(scheme: "notes", action: "add", error: URL(string: "launcher://x-callback-url/failed?run=7"))
        #expect(request.errorReply(code: 3, message: "Disk full & sad")?.absoluteString
            == "launcher://x-callback-url/failed?run=7&errorCode=3&errorMessage=Disk%20full%20%26%20sad")
    }

    @Test func errorReplyStartsAQueryWhenTheTargetHasNone() throws {
        let request = try XCallbackRequest(scheme: "notes", action: "add", error: URL(string: "https://l.com/failed"))
        #expect(request.errorReply(code: 1, message: "x")?.absoluteString == "https://l.com/failed?errorCode=1&errorMessage=x")
    }

    @Test func repliesAreNilWithoutTargets() throws {
        let request = try XCallbackRequest(scheme: "notes", action: "add")
        #expect(request.successReply() == nil)
        #expect(request.errorReply(code: 1, message: "x") == nil)
        #expect(request.cancelReply() == nil)
    }

    @Test func buildThenParseGivesTheSameRequest() throws {
        let request = try XCallbackRequest(scheme: "notes", action: "lists/add", source: "Launcher & Co",
                                           success: URL(string: "https://l.com/ok?a=1&b=2"), cancel: URL(string: "launcher://x-callback-url/cancel"),
                                           parameters: [QueryParameter(name: "text", value: "a=b&c"), QueryParameter(name: "flag", value: nil)])
        #expect(try XCallbackRequest(parsing: request.text) == request)
    }

    @Test func duplicateXParametersAreRefused() {
        #expect(throws: LinkError.self) {
            try XCallbackRequest(parsing: "notes://x-callback-url/add?x-success=https%3A%2F%2Fa.com&x-success=https%3A%2F%2Fevil.com")
        }
    }

    @Test func anHTTPSchemeIsNotAnXCallbackRequest() {
        #expect(throws: LinkError.self) { try XCallbackRequest(scheme: "https", action: "add") }
    }

    @Test func theHostMustBeXCallbackURL() {
        #expect(throws: LinkError.self) { try XCallbackRequest(parsing: "notes://callback/add?x-success=https%3A%2F%2Fa.com") }
    }
}
