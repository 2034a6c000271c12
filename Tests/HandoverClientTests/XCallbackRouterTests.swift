import Foundation
import HandoverClient
import LinkCallbacks
import Testing

@Suite(.timeLimit(.minutes(5))) struct XCallbackRouterTests {
    struct Add: XCallbackInput {
        static let action = "add"
        var text: String
        init(request: XCallbackRequest) throws(LinkError) {
            guard let text = request.parameter("text") else {
                throw LinkError(parameter: "text", problem: .missingParameter, detail: "the request has no text", accepted: "text=…")
            }
            self.text = text
        }
    }

    func router() throws -> (XCallbackRouter, RecordingOpener) {
        let opener = RecordingOpener()
        let policy = CallbackPolicy(allowedHosts: try HostAllowlist(["launcher.example.com"]), allowedCustomSchemes: ["launcher"])
        let router = XCallbackRouter(scheme: "notes", policy: policy, opener: opener)
        router.register(Add.self) { add in .success(["id": "42", "echo": add.text]) }
        router.register("fail") { _ in .failure(code: 7, message: "disk full") }
        router.register("cancel") { _ in .cancelled }
        return (router, opener)
    }

    let targets = "x-success=launcher%3A%2F%2Fx-callback-url%2Fok&x-error=launcher%3A%2F%2Fx-callback-url%2Ferr&x-cancel=https%3A%2F%2Flauncher.example.com%2Fcancel"

    @Test func successRepliesWithResultParameters() async throws {
        let (router, opener) = try router()
        let dispatch = await router.handle(URL(string: "notes://x-callback-url/add?\(targets)&text=hi")!)
        #expect(dispatch == .handled(action: "add", outcome: .success(["id": "42", "echo": "hi"]),
                                     reply: URL(string: "launcher://x-callback-url/ok?echo=hi&id=42")!))
        #expect(opener.opened == [URL(string: "launcher://x-callback-url/ok?echo=hi&id=42")!])
    }

    @Test func failureRepliesWithErrorCodeAndMessage() async throws {
        let (router, opener) = try router()
        await router.handle(URL(string: "notes://x-callback-url/fail?\(targets)")!)
        #expect(opener.opened == [URL(string: "launcher://x-callback-url/err?errorCode=7&errorMessage=disk%20full")!])
    }

    @Test func typedInputThatDoesNotDecodeRepliesWithError400() async throws {
        let (router, opener) = try router()
        await router.handle(URL(string: "notes://x-callback-url/add?\(targets)")!)
        #expect(opener.opened.first?.absoluteString.hasPrefix("launcher://x-callback-url/err?errorCode=400&errorMessage=") == true)
    }

    @Test func cancelOpensTheCancelTarget() async throws {
        let (router, opener) = try router()
        await router.handle(URL(string: "notes://x-callback-url/cancel?\(targets)")!)
        #expect(opener.opened == [URL(string: "https://launcher.example.com/cancel")!])
    }

    @Test func unknownActionRepliesWith404() async throws {
        let (router, opener) = try router()
        let dispatch = await router.handle(URL(string: "notes://x-callback-url/nope?\(targets)")!)
        guard case .unknownAction("nope", _) = dispatch else { Issue.record("got \(dispatch)"); return }
        #expect(opener.opened.first?.absoluteString.contains("errorCode=404") == true)
    }

    @Test func replyTargetOffTheAllowlistIsNotOpened() async throws {
        let (router, opener) = try router()
        let dispatch = await router.handle(URL(string: "notes://x-callback-url/add?text=a&x-success=https%3A%2F%2Fevil.example.net%2Fx")!)
        guard case .replyRefused(_, _, let reason) = dispatch else { Issue.record("got \(dispatch)"); return }
        #expect(reason.problem == .hostNotAllowed)
        #expect(opener.opened.isEmpty)
    }

    @Test func linkForAnotherSchemeIsNotDispatched() async throws {
        let (router, opener) = try router()
        guard case .notAnXCallback = await router.handle(URL(string: "other://x-callback-url/add?text=a")!) else {
            Issue.record("dispatched"); return
        }
        #expect(opener.opened.isEmpty)
    }
}
