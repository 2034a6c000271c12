import Foundation
import Testing
@testable import LinkCallbacks

/// The source documents' out-of-band links (seed 004) as a receiving app's policy judges them.
///
/// Their payload (`dispatchTokenResponse`) is read by `OutOfBand.OperationLink`; here the link is
/// what it looks like to the policy: an x-callback-url request whose targets must be allowed.
@Suite(.timeLimit(.minutes(5))) struct DispatchTokenLinkPolicyTests {
    /// base64url of `{"nma_data":{"token":"t","redeem_url":"https://a.com/r"},"nma_data_content_type":"application/json","nma_data_version":"1"}`.
    static let payload = "eyJubWFfZGF0YSI6eyJ0b2tlbiI6InQiLCJyZWRlZW1fdXJsIjoiaHR0cHM6Ly9hLmNvbS9yIn0sIm5tYV9kYXRhX2NvbnRlbnRfdHlwZSI6ImFwcGxpY2F0aW9uL2pzb24iLCJubWFfZGF0YV92ZXJzaW9uIjoiMSJ9"
    static let policy = CallbackPolicy(allowedHosts: try! HostAllowlist(["mydomain.com"]), allowedCustomSchemes: ["mybusinessapp"])

    @Test func seedExamplesAreAcceptedWithTheirTargets() throws {
        let web = "myaccessapp://x-callback-url/register?x-success=https://mydomain.com/success&x-cancel=https://mydomain.com/usercancelled&x-error=https://mydomain.com/error&dispatchTokenResponse=\(Self.payload)"
        let app = "myaccessapp://x-callback-url/register?x-success=mybusinessapp://x-callback-url/success&x-cancel=mybusinessapp://x-callback-url/usercancelled&x-error=mybusinessapp://x-callback-url/error&dispatchTokenResponse=\(Self.payload)"
        let mixed = "myaccessapp://x-callback-url/register?x-success=mybusinessapp://x-callback-url/success&x-cancel=mybusinessapp://x-callback-url/usercancelled&x-error=https://mydomain.com/error&dispatchTokenResponse=\(Self.payload)"
        for (text, success, error) in [(web, "https://mydomain.com/success", "https://mydomain.com/error"),
                                       (app, "mybusinessapp://x-callback-url/success", "mybusinessapp://x-callback-url/error"),
                                       (mixed, "mybusinessapp://x-callback-url/success", "https://mydomain.com/error")] {
            guard case .xCallback(let request) = try Self.policy.evaluate(text) else {
                Issue.record("not an x-callback request: \(text)")
                continue
            }
            #expect(request.action == "register")
            #expect(request.success?.absoluteString == success)
            #expect(request.error?.absoluteString == error)
            #expect(request.cancel != nil)
            #expect(request.parameters.map(\.name) == ["dispatchTokenResponse"])
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
        do {
            _ = try Self.policy.evaluate("myaccessapp://x-callback-url/register?\(query)&dispatchTokenResponse=\(Self.payload)")
            Issue.record("accepted \(query)")
        } catch {
            #expect(error.problem == problem, "\(error)")
        }
    }

    /// A universal link whose only mark is `dispatchTokenResponse` is not a kind this module
    /// reads: its payload is OutOfBand's, which reads it with its base and judges both.
    @Test func aUniversalLinkCarryingOnlyAPayloadIsNotALinkKindHere() {
        #expect(throws: LinkError.self) { try Link(parsing: "https://auth.example.com/oob?dispatchTokenResponse=\(Self.payload)") }
        #expect(Link.Kind(claimedBy: "https://auth.example.com/oob?dispatchTokenResponse=\(Self.payload)") == nil)
        #expect(Link.Kind.allCases == [.ulc, .xCallback])
    }
}
