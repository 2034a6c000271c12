import Foundation
import Testing
@testable import LinkCallbacks

@Suite(.timeLimit(.minutes(5))) struct OutOfBandLinkTests {
    static let envelope = OutOfBandEnvelope(content: .json(token: "tok-123", redeemURL: URL(string: "https://auth.example.com/redeem")!))

    @Test func universalLinkFormCarriesThePayloadAndKeepsTheBase() throws {
        let payload = Base64URL.encode(Self.envelope.json())
        let link = try OutOfBandLink(parsing: "https://auth.example.com/oob?lang=en&dispatchTokenResponse=\(payload)")
        #expect(link.form == .universalLink(base: URL(string: "https://auth.example.com/oob?lang=en")!))
        #expect(try link.envelope() == Self.envelope)
        #expect(try OutOfBandLink(parsing: link.text) == link)
    }

    @Test func seedExamplesParseWithTheirTargets() throws {
        let payload = Base64URL.encode(Self.envelope.json())
        let web = "myaccessapp://x-callback-url/register?x-success=https://mydomain.com/success&x-cancel=https://mydomain.com/usercancelled&x-error=https://mydomain.com/error&dispatchTokenResponse=\(payload)"
        let app = "myaccessapp://x-callback-url/register?x-success=mybusinessapp://x-callback-url/success&x-cancel=mybusinessapp://x-callback-url/usercancelled&x-error=mybusinessapp://x-callback-url/error&dispatchTokenResponse=\(payload)"
        let mixed = "myaccessapp://x-callback-url/register?x-success=mybusinessapp://x-callback-url/success&x-cancel=mybusinessapp://x-callback-url/usercancelled&x-error=https://mydomain.com/error&dispatchTokenResponse=\(payload)"
        let policy = CallbackPolicy(allowedHosts: try HostAllowlist(["mydomain.com"]), allowedCustomSchemes: ["mybusinessapp"])
        for (text, success, error) in [(web, "https://mydomain.com/success", "https://mydomain.com/error"),
                                       (app, "mybusinessapp://x-callback-url/success", "mybusinessapp://x-callback-url/error"),
                                       (mixed, "mybusinessapp://x-callback-url/success", "https://mydomain.com/error")] {
            guard case .outOfBand(let link) = try policy.evaluate(text), case .xCallback(let request) = link.form else {
                Issue.record("not an out-of-band x-callback link: \(text)")
                continue
            }
            #expect(request.action == "register")
            #expect(request.success?.absoluteString == success)
            #expect(request.error?.absoluteString == error)
            #expect(request.cancel != nil)
            #expect(request.parameters.isEmpty)
            #expect(try link.envelope() == Self.envelope)
        }
    }

    @Test(arguments: [
        ("x-success=javascript:alert(1)", LinkError.Problem.disallowedScheme),
        ("x-success=https://evil.example/success", .hostNotAllowed),
        ("x-success=evilapp://x-callback-url/steal", .disallowedScheme),
        ("x-error=https://mydomain.com@evil.example/error", .userInfo),
        ("x-cancel=https://mydomain.com:8443/cancel", .explicitPort),
        ("x-success=https://mydomain.com/a&x-success=https://evil.example/b", .duplicateParameter),
        ("x-success=https://xn--mydomin-4ya.com/success", .hostNotAllowed),
        ("x-error=data:text/html,hi", .disallowedScheme),
    ])
    func hostileVariantsOfTheSeedExamplesAreRejected(query: String, problem: LinkError.Problem) throws {
        let payload = Base64URL.encode(Self.envelope.json())
        let policy = CallbackPolicy(allowedHosts: try HostAllowlist(["mydomain.com"]), allowedCustomSchemes: ["mybusinessapp"])
        do {
            _ = try policy.evaluate("myaccessapp://x-callback-url/register?\(query)&dispatchTokenResponse=\(payload)")
            Issue.record("accepted \(query)")
        } catch {
            #expect(error.problem == problem, "\(error)")
        }
    }

    @Test func josePayloadIsKeptForTheDeviceToDecrypt() throws {
        let jose = OutOfBandEnvelope(content: .jose("eyJhbGciOiJFQ0RILUVTIn0.a.b.c.d"))
        let link = OutOfBandLink(form: .universalLink(base: URL(string: "https://auth.example.com/oob")!), payload: jose.json())
        #expect(try OutOfBandLink(parsing: link.text).envelope() == jose)
    }

    @Test func unknownContentTypeIsNamed() {
        let json = Data(#"{"nma_data":"x","nma_data_content_type":"text/plain","nma_data_version":"1"}"#.utf8)
        do {
            _ = try OutOfBandEnvelope(json: json)
            Issue.record("accepted")
        } catch {
            #expect(error.parameter == "nma_data_content_type")
        }
    }

    @Test func paddedPayloadIsRefused() {
        #expect(throws: LinkError.self) { try OutOfBandLink(parsing: "https://a.com/oob?dispatchTokenResponse=eyJhIjoxfQ==") }
    }

    @Test func twoPayloadsAreRefused() {
        #expect(throws: LinkError.self) { try OutOfBandLink(parsing: "https://a.com/oob?dispatchTokenResponse=eyJh&dispatchTokenResponse=eyJh") }
    }
}

@Suite(.timeLimit(.minutes(5))) struct Base64URLTests {
    @Test func encodesWithoutPaddingAndWithTheURLAlphabet() {
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
        #expect(Base64URL.encode(Array("f".utf8)) == "Zg")
        #expect(Base64URL.encode(Array("foobar".utf8)) == "Zm9vYmFy")
    }

    @Test(arguments: ["Zg==", "Zg=", "+/8", "Zm9v YmFy", "Z", "Zh", "Zm9vYmF\n"])
    func rejectsPaddingPlainAlphabetWhitespaceBadLengthAndStrayBits(text: String) {
        #expect(throws: LinkError.self) { try Base64URL.decode(text) }
    }

    @Test func decodesWhatItEncodes() throws {
        #expect(try Base64URL.decode("-_8") == Data([0xFB, 0xFF]))
        #expect(try Base64URL.decode("") == Data())
    }
}
