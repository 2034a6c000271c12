import Foundation
import Testing
@testable import LinkCallbacks

/// One test per rule of the default policy, each checking the reason given.
@Suite(.timeLimit(.minutes(5))) struct CallbackPolicyTests {
    static func ulc(action: String = "https://appb.com/logout", success: String = "https://appa.com/ok",
                    error: String = "https://appa.com/err") -> String {
        "\(action)?ulc-success=\(PercentEncoding.encodeUnreserved(success))&ulc-error=\(PercentEncoding.encodeUnreserved(error))"
    }

    static func rejection(_ text: String, _ policy: CallbackPolicy = .default) -> LinkError? {
        do {
            _ = try policy.evaluate(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func aPlainULCIsAccepted() {
        #expect(Self.rejection(Self.ulc()) == nil)
    }

    @Test(arguments: ["http://appb.com/logout", "ftp://appb.com/logout", "myapp://appb.com/logout"])
    func aNonHTTPSActionIsRejected(action: String) throws {
        let error = try #require(Self.rejection(Self.ulc(action: action)))
        #expect(error.problem == .disallowedScheme)
        #expect(error.parameter == "action")
    }

    @Test(arguments: ["http://appa.com/ok", "javascript:alert(document.cookie)", "JavaScript:alert(1)", "data:text/html;base64,PHNjcmlwdD4",
                      "file:///etc/passwd", "vbscript:msgbox", "launcher://done"])
    func aNonHTTPSCallbackIsRejectedForItsScheme(callback: String) throws {
        let error = try #require(Self.rejection(Self.ulc(success: callback)))
        #expect(error.problem == .disallowedScheme)
        #expect(error.parameter == "ulc-success")
        #expect(error.accepted.contains("https"))
    }

    @Test func aCustomSchemeIsAllowedForXCallbackTargetsOnlyWhenThePolicyNamesIt() {
        let link = "notes://x-callback-url/add?x-success=launcher%3A%2F%2Fx-callback-url%2Fdone"
        #expect(Self.rejection(link)?.problem == .disallowedScheme)
        #expect(Self.rejection(link, CallbackPolicy(allowedCustomSchemes: ["Launcher"])) == nil)
        // ...and never for a ULC callback, which must be a universal link.
        #expect(Self.rejection(Self.ulc(success: "launcher://x-callback-url/done"), CallbackPolicy(allowedCustomSchemes: ["launcher"]))?.problem
            == .disallowedScheme)
    }

    @Test(arguments: ["https://good.com@evil.com/", "https://user:pass@appa.com/ok", "https://@appa.com/ok"])
    func userInfoIsRejected(callback: String) {
        #expect(Self.rejection(Self.ulc(success: callback))?.problem == .userInfo)
    }

    @Test func aBackslashIsRejected() {
        #expect(Self.rejection(Self.ulc(success: "https://appa.com\\@evil.com/"))?.problem == .backslash)
        #expect(Self.rejection("https://appb.com\\logout?ulc-success=https%3A%2F%2Fa.com&ulc-error=https%3A%2F%2Fa.com")?.problem == .backslash)
    }

    @Test(arguments: ["\u{0}", "\r", "\n", "\t", "\u{7F}", "\u{85}"])
    func aRawControlCharacterIsRejected(character: String) {
        #expect(Self.rejection(Self.ulc(success: "https://appa.com/ok\(character)x"))?.problem == .controlCharacter)
        #expect(Self.rejection("https://appb.com/logout\(character)?ulc-success=https%3A%2F%2Fa.com&ulc-error=https%3A%2F%2Fa.com")?.problem
            == .controlCharacter)
    }

    @Test(arguments: ["%0d%0aSet-Cookie:x", "%0A", "%0D", "%00"])
    func anEncodedLineBreakOrNulIsRejected(suffix: String) {
        #expect(Self.rejection(Self.ulc(success: "https://appa.com/ok\(suffix)"))?.problem == .encodedControlCharacter)
        #expect(Self.rejection(Self.ulc(action: "https://appb.com/logout\(suffix)"))?.problem == .encodedControlCharacter)
    }

    @Test(arguments: ["https://appa.com:443/ok", "https://appa.com:8443/ok", "https://appa.com:/ok"])
    func anExplicitPortIsRejected(callback: String) {
        #expect(Self.rejection(Self.ulc(success: callback))?.problem == .explicitPort)
    }

    @Test func anExplicitPortOnTheActionIsRejected() {
        #expect(Self.rejection(Self.ulc(action: "https://appb.com:8443/logout"))?.problem == .explicitPort)
    }

    @Test(arguments: ["https://127.0.0.1/ok", "https://[::1]/ok", "https://10.0.0.1/ok", "https://2130706433/ok", "https://0x7f.1/ok",
                      "https://[fe80::1%25eth0]/ok"])
    func anIPAddressHostIsRejected(callback: String) {
        #expect(Self.rejection(Self.ulc(success: callback))?.problem == .ipAddressHost)
    }

    @Test func anEmptyHostIsRejected() {
        #expect(Self.rejection(Self.ulc(success: "https:///ok"))?.problem == .emptyHost)
        #expect(Self.rejection(Self.ulc(action: "https:///logout"))?.problem == .emptyHost)
    }

    @Test(arguments: ["https://app_a.com/ok", "https://-appa.com/ok", "https://appa..com/ok", "https://appa.com./ok",
                      "https://xn--zz.com/ok", "https://ap%70a.com/ok", "https://ab--cd.com/ok", "https://a☃b.com/ok",
                      "https://\(String(repeating: "a", count: 64)).com/ok"])
    func aHostThatIsNotValidASCIIOrIDNAIsRejected(callback: String) {
        #expect(Self.rejection(Self.ulc(success: callback))?.problem == .invalidHost, "\(callback)")
    }

    @Test func aValidIDNAHostIsAcceptedInItsASCIIForm() throws {
        #expect(Self.rejection(Self.ulc(success: "https://bücher.example/ok")) == nil)
        #expect(Self.rejection(Self.ulc(success: "https://xn--bcher-kva.example/ok")) == nil)
        let allow = CallbackPolicy(allowedHosts: try HostAllowlist(["bücher.example"]))
        #expect(Self.rejection(Self.ulc(success: "https://xn--bcher-kva.example/ok", error: "https://BÜCHER.example/e"), allow) == nil)
    }

    @Test func duplicateULCParametersAreRejected() {
        let twice = "https://appb.com/l?ulc-success=https%3A%2F%2Fappa.com&ulc-success=https%3A%2F%2Fevil.com&ulc-error=https%3A%2F%2Fappa.com"
        #expect(Self.rejection(twice)?.problem == .duplicateParameter)
        let encodedName = "https://appb.com/l?ulc-success=https%3A%2F%2Fappa.com&ulc%2Dsuccess=https%3A%2F%2Fevil.com&ulc-error=https%3A%2F%2Fappa.com"
        #expect(Self.rejection(encodedName)?.problem == .duplicateParameter)
        let errorTwice = "https://appb.com/l?ulc-success=https%3A%2F%2Fappa.com&ulc-error=https%3A%2F%2Fappa.com&ulc-error=https%3A%2F%2Fevil.com"
        #expect(Self.rejection(errorTwice)?.problem == .duplicateParameter)
    }

    @Test func duplicateXParametersAreRejected() {
        #expect(Self.rejection("notes://x-callback-url/add?x-error=https%3A%2F%2Fa.com&x-error=https%3A%2F%2Fb.com")?.problem == .duplicateParameter)
        #expect(Self.rejection("notes://x-callback-url/add?x-source=A&x-source=B")?.problem == .duplicateParameter)
    }

    @Test func aCallbackThatIsItselfAULCIsALoop() {
        let inner = Self.ulc(action: "https://appc.com/logout")
        let error = Self.rejection(Self.ulc(success: inner))
        #expect(error?.problem == .callbackLoop)
        #expect(error?.parameter == "ulc-success")
        #expect(Self.rejection("notes://x-callback-url/add?x-success=\(PercentEncoding.encodeUnreserved(inner))")?.problem == .callbackLoop)
    }

    @Test func aLinkLongerThan8KBIsRejected() {
        let long = Self.ulc(success: "https://appa.com/" + String(repeating: "a", count: 8200))
        #expect(Self.rejection(long)?.problem == .tooLong)
        let justUnder = Self.ulc(success: "https://appa.com/" + String(repeating: "a", count: 8000))
        #expect(Self.rejection(justUnder) == nil)
    }

    @Test func theAllowlistAcceptsExactHostsAndSubdomainsOfStarEntries() throws {
        let policy = CallbackPolicy(allowedHosts: try HostAllowlist(["appa.com", "*.launcher.example"]))
        #expect(Self.rejection(Self.ulc(success: "https://APPA.com/ok"), policy) == nil)
        #expect(Self.rejection(Self.ulc(success: "https://eu.launcher.example/ok", error: "https://a.b.launcher.example/e"), policy) == nil)
    }

    @Test(arguments: ["https://appa.com.evil.com/ok", "https://evilappa.com/ok", "https://\u{0430}ppa.com/ok", "https://xn--ppa-5cd.com/ok",
                      "https://launcher.example/ok", "https://evillauncher.example/ok", "https://sub.appa.com/ok"])
    func aLookAlikeHostNeverPassesTheAllowlist(callback: String) throws {
        let policy = CallbackPolicy(allowedHosts: try HostAllowlist(["appa.com", "*.launcher.example"]))
        #expect(Self.rejection(Self.ulc(success: callback), policy)?.problem == .hostNotAllowed, "\(callback)")
    }

    @Test func theAllowlistDoesNotApplyToTheActionItself() throws {
        let policy = CallbackPolicy(allowedHosts: try HostAllowlist(["appa.com"]))
        #expect(Self.rejection(Self.ulc(action: "https://appb.com/logout"), policy) == nil)
    }

    @Test(arguments: ["*", "*.com", "a*.com", "http://x.com"])
    func aBadAllowlistEntryIsRefused(entry: String) {
        #expect(throws: LinkError.self) { try HostAllowlist([entry]) }
    }

    @Test func loopbackDeveloperModeAllowsHTTPOnLoopbackOnly() {
        let policy = CallbackPolicy(allowsLoopbackHTTP: true)
        #expect(Self.rejection(Self.ulc(success: "http://127.0.0.1:8080/cb", error: "http://localhost:9/e"), policy) == nil)
        #expect(Self.rejection(Self.ulc(success: "http://appa.com/cb"), policy)?.problem == .disallowedScheme)
        #expect(Self.rejection(Self.ulc(success: "http://127.0.0.1:8080/cb"))?.problem == .disallowedScheme)
    }

    /// Regression: in developer mode a loopback callback skipped the allowlist, so an app
    /// that allowed only `localhost` still opened `127.0.0.1` (the tester's hostile round).
    @Test func developerModeStillAppliesTheAllowlistToLoopbackHosts() throws {
        let policy = CallbackPolicy(allowedHosts: try HostAllowlist(["localhost"]), allowsLoopbackHTTP: true)
        #expect(Self.rejection(Self.ulc(success: "http://localhost:8080/cb", error: "http://localhost:8080/e"), policy) == nil)
        #expect(Self.rejection(Self.ulc(success: "http://127.0.0.1:8080/cb", error: "http://localhost:8080/e"), policy)?.problem == .hostNotAllowed)
        let none = CallbackPolicy(allowedHosts: try HostAllowlist(["launcher.example.com"]), allowsLoopbackHTTP: true)
        #expect(Self.rejection(Self.ulc(success: "http://localhost:8080/cb", error: "http://localhost:8080/e"), none)?.problem == .hostNotAllowed)
    }

    @Test func everyReasonNamesTheParameterTheProblemAndWhatIsAccepted() throws {
        let error = try #require(Self.rejection(Self.ulc(error: "https://appa.com:1/e")))
        #expect(error.description == "ulc-error: the URL names port '1'. Accepted: no port; universal links always use 443.")
    }

    @Test func anUnrecognizedLinkSaysWhatMarksAULC() throws {
        let error = try #require(Self.rejection("https://appb.com/logout?ulc-error=https%3A%2F%2Fa.com"))
        #expect(error.problem == .unrecognizedLink)
        #expect(error.detail.contains("ulc-success"))
    }
}
