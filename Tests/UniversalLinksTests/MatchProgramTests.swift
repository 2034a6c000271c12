import Testing
import PropertyBased
@testable import UniversalLinks

/// `AssociationMatcher` (the flat `MatchProgram`) decides exactly as `ReferenceMatcher` (the
/// `ComponentPattern` objects it is compiled from, matched over allocated forms).
@Suite(.timeLimit(.minutes(5))) struct MatchProgramTests {
    static let paths = ["/buy/*", "/buy", "*", "/a*b", "/item/?*", "abc", "/Promo/*", "/café/*", "/caf%C3%A9", "/$(lang)/shop/*",
                        "/$(x)/*", "/$(undefined)", "/a%2Fb", "/?/*/z", "", "/ÀB*", "/$(alpha)$(digit)", "*/*", "/buy/", "/İ*", "/zZ*",
                        "//buy", "///buy/*", "/buy//", "/*/", "//", "/", "*/", "abc/"]
    static let queries = [#""a=1""#, #""*""#, #""?*""#, #"{"a":"1"}"#, #"{"a":"?*"}"#, #"{"a":""}"#, #"{"A":"X*","b":"*"}"#,
                          #"{"a":null}"#, #"{"é":"%C3*"}"#, #"{"q":"$(lang)"}"#, #""A=%41""#]
    static let fragments = ["top", "*", "?*", "T?p", "é"]
    static let urls = [
        "https://example.com/", "https://example.com", "https://example.com/buy", "https://example.com/buy/", "https://example.com/buy/42",
        "https://EXAMPLE.com./BUY/42", "http://example.com:80/buy", "https://example.com:443/abc", "https://example.com:8443/abc",
        "https://u:p@example.com/a/x/b", "ftp://example.com/buy", "HTTPS://example.com/item/1", "https://other.com/buy",
        "https://example.com/promo/x?A=X1&b", "https://example.com/PROMO/?a=1&a=1#top", "https://example.com/?a=1&a=2#TOP",
        "https://example.com/caf%C3%A9", "https://example.com/café/x", "https://example.com/CAF%c3%a9/", "https://example.com/a%2Fb",
        "https://example.com/a/b", "https://example.com/en/shop/x", "https://example.com/EN/shop", "https://example.com/zz/x", "https://example.com/ZZ/Y",
        "https://example.com/àb?%C3%A9=%C3%A9#é", "https://example.com/%C3%80B?%C3%89=%C3%A9x", "https://example.com/q1?q=en&q=fr",
        "https://example.com/x?a=1&&b=%26&a", "https://example.com/x?a=%31", "https://example.com/x/y/z#t%6Fp", "https://example.com/i̇x",
        "https://example.com/İx?A=%41", "https://example.com/a%zz?=1&a=#", "https://[::1]/buy", "https://example.com/%FF?a=%ff",
        "https://example.com//buy", "https://example.com/buy//", "https://example.com/anypath/", "https://example.com//",
    ]

    /// Builds a file from a list of numbers.
    static func file(_ numbers: [Int]) -> String {
        var index = 0
        func next() -> Int { defer { index += 1 }; return index < numbers.count ? numbers[index] : 0 }
        func options() -> String {
            var text = ""
            switch next() % 3 { case 0: text += #","caseSensitive":false"#; case 1: text += #","caseSensitive":true"#; default: break }
            switch next() % 3 { case 0: text += #","percentEncoded":false"#; case 1: text += #","percentEncoded":true"#; default: break }
            return text
        }
        var details: [String] = []
        for _ in 0..<(1 + next() % 3) {
            let apps = ["\"\(testAppID)\"", #""OTHER12345.com.example.other""#, "\"\(testAppID)\",\"\(testAppID)\""][next() % 3]
            var body = #"{"appIDs":[\#(apps)],"defaults":{"x":0\#(options())}"#
            if next() % 4 == 0 {
                let legacy = (0..<(next() % 4)).map { _ in "\"" + (next() % 2 == 0 ? "NOT " : "") + paths[next() % paths.count] + "\"" }
                body += #","paths":[\#(legacy.joined(separator: ","))]}"#
            } else {
                var components: [String] = []
                for _ in 0..<(next() % 6) {
                    var members: [String] = []
                    if next() % 4 != 0 { members.append(#""/":"\#(paths[next() % paths.count])""#) }
                    if next() % 3 == 0 { members.append(#""?":\#(queries[next() % queries.count])"#) }
                    if next() % 4 == 0 { members.append(##""#":"\##(fragments[next() % fragments.count])""##) }
                    if next() % 4 == 0 { members.append(#""exclude":true"#) }
                    components.append("{" + members.joined(separator: ",") + (members.isEmpty ? #""x":0"# : "") + options() + "}")
                }
                body += #","components":[\#(components.joined(separator: ","))]}"#
            }
            details.append(body)
        }
        return #"{"applinks":{"defaults":{"x":0\#(options())},"substitutionVariables":{"x":["a","B?","*c"]},"details":[\#(details.joined(separator: ","))]}}"#
    }

    @Test func flatProgramDecidesLikeTheReferenceMatcher() async {
        await propertyCheck(count: 400, input: Gen.int(in: 0...10_000).array(of: 0...60)) { numbers in
            let text = Self.file(numbers)
            guard let file = try? AssociationFileParser.parse(text: text) else {
                Issue.record("did not parse: \(text)")
                return
            }
            for domain in ["example.com", "EXAMPLE.com:443", "example.com:8443"] {
                let matcher = AssociationMatcher(file: file, domain: domain)
                let reference = ReferenceMatcher(file: file, domain: domain)
                for appID in [testAppID, "OTHER12345.com.example.other", "NONE"] {
                    for url in Self.urls {
                        let expected = reference.decide(appID: appID, url: url)
                        #expect(matcher.decide(appID: appID, url: url) == expected, "\(text) \(domain) \(appID) \(url)")
                        if let raw = SplitURL(url) {
                            #expect(matcher.decide(appID: appID, url: raw) == expected, "\(text) \(domain) \(appID) \(url) (SplitURL)")
                        }
                    }
                }
            }
        }
    }

    /// `--explain` tries the rules one part at a time; it must still decide as the matcher does.
    @Test func theExplainerDecidesLikeTheMatcher() async {
        await propertyCheck(count: 300, input: Gen.int(in: 0...10_000).array(of: 0...30)) { numbers in
            let text = Self.file(numbers)
            guard let file = try? AssociationFileParser.parse(text: text) else { return }
            let matcher = AssociationMatcher(file: file, domain: "example.com")
            let explainer = AssociationExplainer(file: file, domain: "example.com")
            for appID in [testAppID, "NONE"] {
                for url in Self.urls {
                    #expect(explainer.explain(appID: appID, url: url).decision == matcher.decide(appID: appID, url: url), "\(text) \(appID) \(url)")
                }
            }
        }
    }

    @Test func splittingABufferAgreesWithSplitURL() {
        for url in Self.urls + ["https://", "https://:1/", "https://a:123456/", "https://[::1", "https://[::1]x/", "a+b-c.d://h/p"] {
            let raw = SplitURL(url)
            let parts = Array(url.utf8).withUnsafeBufferPointer { URLParts($0) }
            #expect((raw == nil) == (parts == nil), "\(url)")
            if let raw, let parts {
                #expect(raw.parts.pathRange == parts.pathRange && raw.parts.hostRange == parts.hostRange && raw.parts.portRange == parts.portRange
                        && raw.parts.queryRange == parts.queryRange && raw.parts.fragmentRange == parts.fragmentRange, "\(url)")
                for domain in ["example.com", "example.com:443", "example.com:80", "EXAMPLE.COM."] where raw.scheme == "http" || raw.scheme == "https" {
                    let fast = Array(url.utf8).withUnsafeBufferPointer { parts.isOnDomain(DomainName(domain), bytes: $0, isHTTP: raw.scheme == "http") }
                    #expect(fast == raw.isOnDomain(domain), "\(url) \(domain)")
                }
            }
        }
    }
}
