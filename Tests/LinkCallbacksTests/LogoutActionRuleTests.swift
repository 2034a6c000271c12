import Foundation
import PropertyBased
import Testing
@testable import LinkCallbacks

/// The registry's rule for logout actions: a length that fits a real link, and no scheme that
/// runs code, that iOS keeps, or (for x-callback-url) the web's.
@Suite(.timeLimit(.minutes(5))) struct LogoutActionRuleTests {
    static func refusal(_ action: String, xCallback: Bool) -> LinkError? {
        do {
            try LogoutActionRule.check(action, xCallback: xCallback)
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: ["javascript", "vbscript", "data", "file", "about", "blob", "JavaScript"])
    func schemesThatRunCodeAreRefused(scheme: String) throws {
        for xCallback in [true, false] {
            let error = try #require(Self.refusal("\(scheme)://x-callback-url/logout", xCallback: xCallback))
            #expect(error.problem == .disallowedScheme && error.detail.contains("runs code"), "\(error)")
            #expect(error.detail.contains(scheme.lowercased()))
        }
    }

    @Test(arguments: ["tel", "sms", "mailto", "facetime", "facetime-audio", "maps", "music", "itms", "itms-apps", "itms-appss",
                      "itms-services", "prefs", "app-settings", "shortcuts", "x-apple-reminderkit", "X-Apple-Health"])
    func schemesIOSKeepsAreRefused(scheme: String) throws {
        let error = try #require(Self.refusal("\(scheme)://x-callback-url/logout", xCallback: true))
        #expect(error.problem == .disallowedScheme && error.detail.contains("reserved by iOS"), "\(error)")
        #expect(error.accepted.contains("custom scheme"))
    }

    @Test(arguments: ["http", "https", "HTTPS"])
    func webSchemesAreRefusedForXCallbackOnly(scheme: String) throws {
        let error = try #require(Self.refusal("\(scheme)://x-callback-url/logout", xCallback: true))
        #expect(error.detail.contains("web scheme"))
        #expect(Self.refusal("\(scheme)://app.example.com/logout", xCallback: false) == nil, "a ULC action is https; CallbackPolicy judges it")
    }

    @Test func theLengthLimitIs2048AndSaysSo() throws {
        let base = "notes://x-callback-url/logout?pad="
        #expect(Self.refusal(base + String(repeating: "a", count: 2048 - base.count), xCallback: true) == nil)
        let error = try #require(Self.refusal(base + String(repeating: "a", count: 2049 - base.count), xCallback: true))
        #expect(error.problem == .tooLong && error.detail.contains("2049") && error.accepted.contains("at most 2048"), "\(error)")
        #expect(Self.refusal("https://a.example.com/" + String(repeating: "a", count: 100_000), xCallback: false)?.problem == .tooLong)
    }

    /// For any scheme and action: the rule refuses exactly the reserved schemes and the actions
    /// over the limit, and a custom scheme of an app's own within the limit passes.
    @Test func everyActionIsJudgedByItsSchemeAndLength() async {
        let reserved = Array(LogoutActionRule.codeSchemes.union(LogoutActionRule.iOSSchemes)) + ["x-apple-maps", "http", "https"]
        let custom = Gen<Character?>.element(of: Array("abcdefghijklmnopqrstuvwxyz0123456789+-.")).compactMap { $0 }.string(of: 1...12)
            .map { "q" + $0 }
        await propertyCheck(count: 500, input: Gen.bool, Gen<Int>.int(in: 0...(reserved.count - 1)), custom, Gen<Int>.int(in: 0...3000), Gen.bool) {
            pickReserved, index, own, padding, upper in
            let scheme = pickReserved ? reserved[index] : own
            let written = upper ? scheme.uppercased() : scheme
            let action = "\(written)://x-callback-url/logout?pad=" + String(repeating: "a", count: padding)
            let error = Self.refusal(action, xCallback: true)
            let isReserved = LogoutActionRule.codeSchemes.contains(scheme) || LogoutActionRule.iOSSchemes.contains(scheme)
                || scheme.hasPrefix("x-apple") || scheme == "http" || scheme == "https"
            if action.utf8.count > LogoutActionRule.maximumLength {
                #expect(error?.problem == .tooLong)
            } else if isReserved {
                #expect(error?.problem == .disallowedScheme, "\(action.prefix(40))")
            } else {
                #expect(error == nil, "\(action.prefix(40)): \(String(describing: error))")
            }
        }
    }
}
