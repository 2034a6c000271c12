import Foundation
import Testing
@testable import OutOfBand

@Suite(.timeLimit(.minutes(5))) struct LinkParserTests {
    let payload = OperationPayload.plain(try! Fixture.envelope())

    @Test func universalLinkCarriesThePayloadInTheFragment() throws {
        let link = OperationLink.universalLink(base: URL(string: "https://handover.example.com/oob?x=1")!, payload: payload)
        #expect(link.text == "https://handover.example.com/oob#p=\(payload.text)")
        let parsed = try OperationLink(parsing: link.text)
        #expect(parsed == link.with(base: "https://handover.example.com/oob"))
        #expect(parsed.callbacks.isEmpty)
    }

    @Test func universalLinkMayCarryThePayloadInTheQueryOrUnderTheDeployedName() throws {
        for text in ["https://h.example/oob?p=\(payload.text)", "https://h.example/oob?a=1&p=\(payload.text)#x",
                     "https://h.example/oob?dispatchTokenResponse=\(payload.text)", "https://H.EXAMPLE/oob#a=b&p=\(payload.text)"] {
            let parsed = try OperationLink(parsing: text)
            #expect(parsed.payload == payload)
            #expect(parsed.form == .universalLink(base: URL(string: "https://h.example/oob")!))
        }
    }

    @Test func xCallbackLinkCarriesItsTargets() throws {
        let callbacks = CallbackTargets(success: URL(string: "https://shop.example/ok?order=7&x=%20")!,
                                        error: URL(string: "shop://x-callback-url/failed")!, cancel: URL(string: "https://shop.example/cancel")!)
        let link = OperationLink.xCallback(scheme: "handover", payload: payload, callbacks: callbacks)
        #expect(link.text.hasPrefix("handover://x-callback-url/oob?x-success=https%3A%2F%2Fshop.example%2Fok%3Forder%3D7%26x%3D%2520&x-error="))
        let parsed = try OperationLink(parsing: link.text)
        #expect(parsed == link)
        #expect(parsed.callbacks.success?.absoluteString == "https://shop.example/ok?order=7&x=%20")
        let delivery = try OperationDelivery(link: try #require(link.url))
        #expect(delivery.channel == .link)
        #expect(delivery.callbacks == callbacks)
    }

    @Test func xCallbackLinkOfTheDeployedSystemIsRead() throws {
        let text = "myaccessapp://x-callback-url/authenticate?x-success=mybusinessapp://x-callback-url/success&x-cancel=https://mydomain.com/usercancelled&dispatchTokenResponse=\(payload.text)"
        let parsed = try OperationLink(parsing: text)
        #expect(parsed.form == .xCallback(scheme: "myaccessapp", action: "authenticate"))
        #expect(parsed.callbacks.success?.absoluteString == "mybusinessapp://x-callback-url/success")
        #expect(parsed.callbacks.error == nil)
    }

    @Test func qrTextIsALinkOrABarePayload() throws {
        #expect(try OperationDelivery(qrText: payload.text + "\n").payload == payload)
        let fromLink = try OperationDelivery(qrText: "https://h.example/oob#p=\(payload.text)")
        #expect(fromLink.channel == .qrCode)
        #expect(fromLink.payload == payload)
        expectError("qr", .invalidPayload) { _ = try OperationDelivery(qrText: "vanilla") }
        expectError("link", .malformedLink) { _ = try OperationDelivery(qrText: "hello world") }
    }

    @Test func pushUserInfoCarriesThePayloadUnderOp() throws {
        #expect(try OperationDelivery(pushUserInfo: ["aps": ["alert": "x"], "op": payload.text]).payload == payload)
        expectError("op", .missing) { _ = try OperationDelivery(pushUserInfo: ["aps": [:]]) }
        expectError("op", .invalidValue) { _ = try OperationDelivery(pushUserInfo: ["op": 42]) }
        expectError("op", .invalidPayload) { _ = try OperationDelivery(pushUserInfo: ["op": "nonsense"]) }
    }

    @Test func everyBadLinkNamesTheFieldAndWhatIsAccepted() {
        let p = payload.text
        expectError("link", .missing) { _ = try OperationLink(parsing: "") }
        expectError("link", .malformedLink) { _ = try OperationLink(parsing: "https://h.example/o o#p=\(p)") }
        expectError("link", .malformedLink) { _ = try OperationLink(parsing: "https://h.example/é#p=\(p)") }
        expectError("link", .malformedLink) { _ = try OperationLink(parsing: "no scheme here") }
        expectError("link", .malformedLink) { _ = try OperationLink(parsing: "mailto:a@b.example") }
        expectError("link", .malformedLink) { _ = try OperationLink(parsing: "https://user@h.example/oob#p=\(p)") }
        expectError("link", .malformedLink) { _ = try OperationLink(parsing: "https://h.example:99999/oob#p=\(p)") }
        expectError("link", .malformedLink) { _ = try OperationLink(parsing: "http://h.example/oob#p=\(p)") }
        expectError("link", .malformedLink) { _ = try OperationLink(parsing: "myapp://oob?p=\(p)") }
        expectError("link", .malformedLink) { _ = try OperationLink(parsing: "https://x-callback-url/oob?p=\(p)") }
        expectError("link", .tooLong) { _ = try OperationLink(parsing: "https://h.example/" + String(repeating: "a", count: 20_000)) }
        expectError("p", .missing) { _ = try OperationLink(parsing: "https://h.example/oob") }
        expectError("p", .duplicate) { _ = try OperationLink(parsing: "https://h.example/oob?p=\(p)#p=\(p)") }
        expectError("p", .invalidPayload) { _ = try OperationLink(parsing: "https://h.example/oob#p=abc") }
        expectError("dispatchTokenResponse", .invalidPayload) { _ = try OperationLink(parsing: "https://h.example/oob?dispatchTokenResponse=eyJubWEiOjF9") }
        expectError("action", .invalidValue) { _ = try OperationLink(parsing: "app://x-callback-url/?p=\(p)") }
        expectError("x-success", .duplicate) {
            _ = try OperationLink(parsing: "app://x-callback-url/oob?x-success=https://a.example&x-success=https://b.example&p=\(p)")
        }
        expectError("x-error", .invalidValue) { _ = try OperationLink(parsing: "app://x-callback-url/oob?x-error=javascript://x/alert(1)&p=\(p)") }
        expectError("x-error", .malformedLink) { _ = try OperationLink(parsing: "app://x-callback-url/oob?x-error=javascript://x%0Aalert(1)&p=\(p)") }
        expectError("x-error", .malformedLink) { _ = try OperationLink(parsing: "app://x-callback-url/oob?x-error=https://a.example/%0D&p=\(p)") }
        expectError("x-cancel", .invalidValue) { _ = try OperationLink(parsing: "app://x-callback-url/oob?x-cancel=not-a-url&p=\(p)") }
        expectError("x-cancel", .malformedLink) { _ = try OperationLink(parsing: "app://x-callback-url/oob?x-cancel=https://a.example/%FF&p=\(p)") }
        expectError("x-cancel", .malformedLink) { _ = try OperationLink(parsing: "app://x-callback-url/oob?x-cancel=%zz&p=\(p)") }
    }

    @Test func errorsReadAsSentences() {
        do {
            _ = try OperationLink(parsing: "https://h.example/oob")
        } catch {
            #expect(error.description == "p: the link carries no payload. Accepted: p=<payload> in the fragment or the query.")
        }
    }
}

extension OperationLink {
    func with(base: String) -> OperationLink {
        OperationLink(form: .universalLink(base: URL(string: base)!), payload: payload, callbacks: callbacks)
    }
}
