import Foundation
import Testing
@testable import OutOfBand

/// The source documents' out-of-band links (seed 004): the envelope in `dispatchTokenResponse`,
/// read and written by the one link model beside Handover's `v1.` payloads.
@Suite(.timeLimit(.minutes(5))) struct DispatchTokenLinkTests {
    static let envelope = DispatchTokenEnvelope(content: .json(token: "tok-123", redeemURL: URL(string: "https://auth.example.com/redeem")!))
    static let payload = Base64URL.encode(envelope.json())

    @Test func universalLinkFormCarriesThePayloadAndKeepsTheBase() throws {
        let link = try OperationLink(parsing: "https://auth.example.com/oob?lang=en&dispatchTokenResponse=\(Self.payload)")
        #expect(link.form == .universalLink(base: URL(string: "https://auth.example.com/oob?lang=en")!))
        #expect(link.payload == .dispatchToken(Self.envelope))
        #expect(link.text == "https://auth.example.com/oob?lang=en&dispatchTokenResponse=\(Self.payload)")
        #expect(try OperationLink(parsing: link.text) == link)
    }

    @Test func aBuiltLinkPutsTheEnvelopeInTheQuery() throws {
        let link = OperationLink.universalLink(base: URL(string: "https://auth.example.com/oob#top")!, payload: .dispatchToken(Self.envelope))
        #expect(link.text == "https://auth.example.com/oob?dispatchTokenResponse=\(Self.payload)")
        let callback = OperationLink.xCallback(scheme: "myaccessapp", action: "register", payload: .dispatchToken(Self.envelope),
                                               callbacks: CallbackTargets(success: URL(string: "https://mydomain.com/success")!))
        #expect(callback.text == "myaccessapp://x-callback-url/register?x-success=https%3A%2F%2Fmydomain.com%2Fsuccess&dispatchTokenResponse=\(Self.payload)")
        #expect(try OperationLink(parsing: callback.text) == callback)
    }

    @Test func seedExamplesParseWithTheirTargets() throws {
        let web = "myaccessapp://x-callback-url/register?x-success=https://mydomain.com/success&x-cancel=https://mydomain.com/usercancelled&x-error=https://mydomain.com/error&dispatchTokenResponse=\(Self.payload)"
        let app = "myaccessapp://x-callback-url/register?x-success=mybusinessapp://x-callback-url/success&x-cancel=mybusinessapp://x-callback-url/usercancelled&x-error=mybusinessapp://x-callback-url/error&dispatchTokenResponse=\(Self.payload)"
        let mixed = "myaccessapp://x-callback-url/register?x-success=mybusinessapp://x-callback-url/success&x-cancel=mybusinessapp://x-callback-url/usercancelled&x-error=https://mydomain.com/error&dispatchTokenResponse=\(Self.payload)"
        for (text, success, error) in [(web, "https://mydomain.com/success", "https://mydomain.com/error"),
                                       (app, "mybusinessapp://x-callback-url/success", "mybusinessapp://x-callback-url/error"),
                                       (mixed, "mybusinessapp://x-callback-url/success", "https://mydomain.com/error")] {
            let link = try OperationLink(parsing: text)
            #expect(link.form == .xCallback(scheme: "myaccessapp", action: "register"))
            #expect(link.callbacks.success?.absoluteString == success)
            #expect(link.callbacks.error?.absoluteString == error)
            #expect(link.callbacks.cancel != nil)
            #expect(link.payload == .dispatchToken(Self.envelope))
        }
    }

    @Test func josePayloadIsKeptForTheDeviceToDecrypt() throws {
        let jose = DispatchTokenEnvelope(content: .jose("eyJhbGciOiJFQ0RILUVTIn0.a.b.c.d"))
        let link = OperationLink.universalLink(base: URL(string: "https://auth.example.com/oob")!, payload: .dispatchToken(jose))
        #expect(try OperationLink(parsing: link.text).payload == .dispatchToken(jose))
    }

    @Test func unknownContentTypeIsNamed() {
        let json = Data(#"{"nma_data":"x","nma_data_content_type":"text/plain","nma_data_version":"1"}"#.utf8)
        expectError("nma_data_content_type", .invalidEnvelope) { _ = try DispatchTokenEnvelope(json: json) }
        expectError("nma_data_content_type", .invalidEnvelope) {
            _ = try OperationLink(parsing: "https://a.com/oob?dispatchTokenResponse=\(Base64URL.encode(json))")
        }
        expectError("nma_data", .invalidEnvelope) {
            let json = Data(#"{"nma_data":"a.b","nma_data_content_type":"application/jose","nma_data_version":"1"}"#.utf8)
            _ = try OperationLink(parsing: "https://a.com/oob?dispatchTokenResponse=\(Base64URL.encode(json))")
        }
    }

    @Test func paddedPayloadIsRefused() {
        expectError("dispatchTokenResponse", .invalidBase64URL) { _ = try OperationLink(parsing: "https://a.com/oob?dispatchTokenResponse=eyJhIjoxfQ==") }
    }

    @Test func twoPayloadsAreRefused() {
        expectError("p", .duplicate) { _ = try OperationLink(parsing: "https://a.com/oob?dispatchTokenResponse=eyJh&dispatchTokenResponse=eyJh") }
        expectError("p", .duplicate) { _ = try OperationLink(parsing: "https://a.com/oob?dispatchTokenResponse=\(Self.payload)#p=v1.p.e30") }
    }

    /// The envelope is another system's token: the phone's client reads it but never answers it
    /// as one of this server's operations.
    @Test func theEnvelopeIsDeliveredButNeverOpenedAsAnOperation() throws {
        let delivery = try OperationDelivery(link: URL(string: "https://auth.example.com/oob?dispatchTokenResponse=\(Self.payload)")!)
        #expect(delivery.channel == .link)
        #expect(delivery.payload == .dispatchToken(Self.envelope))
        expectError("p", .invalidPayload) { _ = try delivery.payload.open(with: DeviceKeys.generate()) }
    }
}
