import Testing
@testable import UniversalLinks

@Suite(.timeLimit(.minutes(5))) struct AssociationExplainerTests {
    static let file = try! AssociationFileParser.parse(text: ##"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.app"],"components":[{"/":"/help"},{"/":"/buy/*","?":{"id":"?*"}},{"/":"/old/*","exclude":true},{"/":"/old/*"},{"/":"/caf%C3%A9"},{"/":"/docs","#":"top"},{"/":"/$(nope)/x"}]}]}}"##)

    func explain(_ url: String, app: String = testAppID) -> AssociationExplanation {
        AssociationExplainer(file: Self.file, domain: testDomain).explain(appID: app, url: url)
    }

    @Test func aMissingQueryItemIsNamed() {
        let why = explain("https://example.com/buy/42")
        #expect(why.decision.outcome == .noMatch)
        #expect(why.closest?.name == "components[1]")
        #expect(why.refusedBy == .queryItem)
        #expect(why.detail.contains("no item 'id'"), "\(why)")
    }

    @Test func aCaseDifferenceSaysWhichSettingWouldMatch() {
        let why = explain("https://example.com/HELP")
        #expect(why.closest?.name == "components[0]")
        #expect(why.refusedBy == .path)
        #expect(why.detail.contains("\"caseSensitive\": false"), "\(why)")
    }

    @Test func aFragmentIsNamed() {
        let why = explain("https://example.com/docs#bottom")
        #expect(why.closest?.name == "components[5]")
        #expect(why.refusedBy == .fragment)
        #expect(why.detail.contains("'bottom'"), "\(why)")
    }

    @Test func anExcludedURLNamesTheExcludeRule() {
        let why = explain("https://example.com/old/1")
        #expect(why.decision.outcome == .exclude)
        #expect(why.decision.rule?.name == "components[2]")
        #expect(why.description.contains("\"exclude\": true"))
    }

    @Test func anotherHostAndAnUnknownAppAreNamed() {
        #expect(explain("https://other.example/help").refusedBy == .host)
        #expect(explain("https://example.com/help", app: "ABCDE12345.com.example.other").refusedBy == .app)
        #expect(explain("not a url").refusedBy == .url)
    }

    @Test func theExplainerDecidesAsTheMatcher() {
        let matcher = AssociationMatcher(file: Self.file, domain: testDomain)
        for url in ["https://example.com/help", "https://example.com/buy/1?id=2", "https://example.com/old/1", "https://example.com/x",
                    "https://example.com/docs#top", "https://example.com/a/x", "https://other.example/help"] {
            #expect(explain(url).decision == matcher.decide(appID: testAppID, url: url), "\(url)")
        }
    }
}
