import Testing
@testable import UniversalLinks

/// One named case per fact of FACTS.md, "Apple App Site Association".
@Suite(.timeLimit(.minutes(5))) struct AssociationFactsTests {
    // MARK: Observed on swcutil: slashes

    @Test func buyWildcardMatchesBuyWithoutTrailingSlash() throws {
        #expect(try pathOutcome("/buy/*", "/buy") == .match)
    }

    @Test func buyWildcardMatchesBuyWithTrailingSlash() throws {
        #expect(try pathOutcome("/buy/*", "/buy/") == .match)
    }

    @Test func buyWildcardMatchesBuyItem() throws {
        #expect(try pathOutcome("/buy/*", "/buy/42") == .match)
    }

    @Test func buyWildcardDoesNotMatchBuyer() throws {
        #expect(try pathOutcome("/buy/*", "/buyer") == .noMatch)
    }

    @Test func buyMatchesBuyWithTrailingSlash() throws {
        #expect(try pathOutcome("/buy", "/buy/") == .match)
    }

    @Test func patternWithoutLeadingSlashMatchesRootedPath() throws {
        #expect(try pathOutcome("abc", "/abc") == .match)
        #expect(try pathOutcome("abc", "/xabc") == .noMatch)
    }

    // MARK: Slashes in patterns
    //
    // Source: the outside corpus of swcutil-checked decisions reported in Handover issue 19 ("iOS
    // normalises the path patterns of an association file more than Handover does, at the start
    // and at the end of a pattern"). Apple's reference (applinks.Details.Components), the WWDC 2019
    // session 717 and WWDC 2020 session 10098 transcripts and the developer forums say nothing of
    // slashes; the legacy pattern "/*/" answering "/anypath/" (imnotyourson.com, "Universal Link
    // trick: matching only one path component") agrees with these rules. docs/universal-links.md,
    // "Slashes", keeps the list.

    @Test func aLeadingRunOfSlashesIsOneSlash() throws {
        #expect(try pathOutcome("//buy", "/buy") == .match)
        #expect(try pathOutcome("///buy/*", "/buy/42") == .match)
        #expect(try pathOutcome("//buy", "/xbuy") == .noMatch)
    }

    @Test func aTrailingSlashInAPatternIsDropped() throws {
        #expect(try pathOutcome("/buy/", "/buy") == .match)
        #expect(try pathOutcome("/buy/", "/buy/") == .match)
        #expect(try pathOutcome("/buy//", "/buy") == .match)
        #expect(try pathOutcome("/buy/", "/buyer") == .noMatch)
        #expect(try pathOutcome("/buy/", "/buy/42") == .noMatch)
    }

    /// Observed on swcutil (macOS 27, issue 63, finding 14): iOS ignores every trailing slash on
    /// both sides, so the pattern `/buy/` matches `/buy//`. Handover dropped one trailing slash of
    /// the URL at most, and said no match.
    @Test func everyTrailingSlashIsIgnoredOnBothSides() throws {
        #expect(try pathOutcome("/buy/", "/buy//") == .match)
        #expect(try pathOutcome("/buy", "/buy///") == .match)
        #expect(try pathOutcome("/buy//", "/buy//") == .match)
        #expect(try pathOutcome("/buy/", "/buyer//") == .noMatch)
        #expect(try pathOutcome("/buy/", "/buy/42/") == .noMatch)
        #expect(try pathOutcome("/buy/42", "/buy/42//") == .match)
        let file = try AssociationFileParser.parse(text: #"{"applinks":{"apps":[],"details":[{"appID":"\#(testAppID)","paths":["/buy/"]}]}}"#)
        #expect(AssociationMatcher(file: file, domain: testDomain).decide(appID: testAppID, url: "https://example.com/buy//").outcome == .match)
    }

    /// The outside corpus's last case (issue 38, item 9): iOS matches `/buy/*` against a path that
    /// ends in a double slash. With every trailing slash of the URL ignored, `/buy//` is `/buy`,
    /// which `/buy/*` and `/buy*` match; `/buy/?*` (at least one character after `/buy/`) does
    /// not, as it does not match `/buy` (Handover's inference in issue 38 said it did).
    @Test func aPatternEndingInStarMatchesAPathEndingInADoubleSlash() throws {
        #expect(try pathOutcome("/buy/*", "/buy//") == .match)
        #expect(try pathOutcome("/buy*", "/buy//") == .match)
        let bare = try pathOutcome("/buy/?*", "/buy")
        #expect(try pathOutcome("/buy/?*", "/buy//") == bare)
        #expect(try pathOutcome("/buy/*", "/buy///") == .match)
        #expect(try pathOutcome("/buy/*", "//buy//") == .noMatch)
        let file = try AssociationFileParser.parse(text: #"{"applinks":{"apps":[],"details":[{"appID":"\#(testAppID)","paths":["/buy/*"]}]}}"#)
        let matcher = AssociationMatcher(file: file, domain: testDomain)
        #expect(matcher.decide(appID: testAppID, url: "https://example.com/buy//").outcome == .match)
    }

    @Test func aPatternOfSlashesOnlyIsTheRoot() throws {
        #expect(try pathOutcome("//", "/") == .match)
        #expect(try pathOutcome("//", "/a") == .noMatch)
    }

    @Test func legacyPathsFollowTheSameSlashRules() throws {
        let file = try AssociationFileParser.parse(text: #"{"applinks":{"apps":[],"details":[{"appID":"\#(testAppID)","paths":["NOT /*/?*","/*/"]}]}}"#)
        let matcher = AssociationMatcher(file: file, domain: testDomain)
        #expect(matcher.decide(appID: testAppID, url: "https://example.com/anypath/").outcome == .match)
        #expect(matcher.decide(appID: testAppID, url: "https://example.com/anypath/more").outcome == .exclude)
    }

    // MARK: Wildcards

    @Test func starMatchesZeroOrMoreCharacters() throws {
        #expect(try pathOutcome("/a*b", "/ab") == .match)
        #expect(try pathOutcome("/a*b", "/a/x/y/b") == .match)
    }

    @Test func questionMarkMatchesExactlyOneCharacter() throws {
        #expect(try pathOutcome("/a?c", "/abc") == .match)
        #expect(try pathOutcome("/a?c", "/ac") == .noMatch)
        #expect(try pathOutcome("/a?c", "/abbc") == .noMatch)
    }

    @Test func questionStarMatchesAtLeastOneCharacter() throws {
        #expect(try pathOutcome("/item/?*", "/item/1") == .match)
        #expect(try pathOutcome("/item/?*", "/item/123") == .match)
        #expect(try pathOutcome("/a?*", "/a") == .noMatch)
    }

    // MARK: Query

    @Test func queryStringMustMatchWholeQuery() throws {
        #expect(try outcome(#"[{"?": "a=1"}]"#, "https://example.com/?a=1") == .match)
        #expect(try outcome(#"[{"?": "a=1"}]"#, "https://example.com/?a=1&b=2") == .noMatch)
    }

    @Test func queryDictionaryIgnoresItemsItDoesNotName() throws {
        #expect(try outcome(#"[{"?": {"a": "1"}}]"#, "https://example.com/?a=1&b=2") == .match)
    }

    @Test func absentQueryItemMatchesStar() throws {
        #expect(try outcome(#"[{"?": {"a": "*"}}]"#, "https://example.com/?b=2") == .match)
    }

    @Test func absentQueryItemMatchesEmptyPattern() throws {
        #expect(try outcome(#"[{"?": {"a": ""}}]"#, "https://example.com/") == .match)
    }

    @Test func absentQueryItemDoesNotMatchQuestionStar() throws {
        #expect(try outcome(#"[{"?": {"a": "?*"}}]"#, "https://example.com/?b=2") == .noMatch)
    }

    @Test func absentQueryItemDoesNotMatchLiteral() throws {
        #expect(try outcome(#"[{"?": {"a": "1"}}]"#, "https://example.com/?b=1") == .noMatch)
    }

    @Test func everyOccurrenceOfRepeatedQueryItemMustMatch() throws {
        #expect(try outcome(#"[{"?": {"a": "1"}}]"#, "https://example.com/?a=1&a=1") == .match)
        #expect(try outcome(#"[{"?": {"a": "1"}}]"#, "https://example.com/?a=1&a=2") == .noMatch)
    }

    @Test(arguments: ["true", "1", "[\"x\"]", "{\"k\": \"v\"}", "null"])
    func nonStringQueryValueMakesDictionaryMatchAnything(value: String) throws {
        let components = #"[{"?": {"a": "1", "b": \#(value)}}]"#
        #expect(try outcome(components, "https://example.com/?a=2") == .match)
        #expect(try outcome(components, "https://example.com/") == .match)
    }

    @Test func queryKeyNotGivenDefaultsToStar() throws {
        #expect(try outcome(#"[{"/": "/p"}]"#, "https://example.com/p?anything=1") == .match)
    }

    // MARK: Fragment

    @Test func fragmentStarMatchesURLWithoutFragment() throws {
        #expect(try outcome(##"[{"#": "*"}]"##, "https://example.com/p") == .match)
    }

    @Test func fragmentQuestionStarDoesNotMatchURLWithoutFragment() throws {
        #expect(try outcome(##"[{"#": "?*"}]"##, "https://example.com/p") == .noMatch)
        #expect(try outcome(##"[{"#": "?*"}]"##, "https://example.com/p#x") == .match)
    }

    // MARK: Percent encoding

    @Test func defaultPercentEncodedDoesNotMatchSpaceAgainstEncodedSpace() throws {
        #expect(try pathOutcome("/a b", "/a%20b") == .noMatch)
        #expect(try pathOutcome("/a%20b", "/a%20b") == .match)
    }

    @Test func encodedSlashIsNotASeparatorWhenPercentEncoded() throws {
        #expect(try pathOutcome("/a/b", "/a%2Fb") == .noMatch)
        #expect(try pathOutcome("/a/*", "/a%2Fb") == .noMatch)
    }

    @Test func hexCaseMattersWhenPercentEncoded() throws {
        #expect(try pathOutcome("/caf%c3%a9", "/caf%C3%A9") == .noMatch)
        #expect(try pathOutcome("/caf%C3%A9", "/caf%C3%A9") == .match)
    }

    @Test func percentEncodedFalseDecodesSpace() throws {
        #expect(try pathOutcome("/a b", "/a%20b", #", "percentEncoded": false"#) == .match)
    }

    @Test func percentEncodedFalseDecodesUnicode() throws {
        #expect(try pathOutcome("/café", "/caf%C3%A9", #", "percentEncoded": false"#) == .match)
        #expect(try pathOutcome("/caf?", "/caf%C3%A9", #", "percentEncoded": false"#) == .match)
    }

    // MARK: Case sensitivity and defaults

    @Test func caseSensitiveByDefault() throws {
        #expect(try pathOutcome("/Buy", "/buy") == .noMatch)
    }

    @Test func caseSensitiveFalseIgnoresCase() throws {
        #expect(try pathOutcome("/Buy/*", "/bUY/1", #", "caseSensitive": false"#) == .match)
    }

    @Test func detailsDefaultsApplyToComponents() throws {
        #expect(try outcome(#"[{"/": "/Buy"}]"#, "https://example.com/buy", detailsExtra: #""defaults": {"caseSensitive": false}, "#) == .match)
    }

    @Test func fileDefaultsApplyToComponents() throws {
        #expect(try outcome(#"[{"/": "/Buy"}]"#, "https://example.com/buy", appLinksExtra: #""defaults": {"caseSensitive": false}, "#) == .match)
    }

    @Test func detailsDefaultsOverrideFileDefaults() throws {
        #expect(try outcome(#"[{"/": "/Buy"}]"#, "https://example.com/buy",
                            detailsExtra: #""defaults": {"caseSensitive": true}, "#,
                            appLinksExtra: #""defaults": {"caseSensitive": false}, "#) == .noMatch)
    }

    @Test func componentOptionOverridesDetailsDefaults() throws {
        #expect(try outcome(#"[{"/": "/a b", "percentEncoded": false}]"#, "https://example.com/a%20b",
                            detailsExtra: #""defaults": {"percentEncoded": true}, "#) == .match)
    }

    // MARK: Ordering and exclusion

    @Test func firstMatchingComponentDecides() throws {
        let components = #"[{"/": "/buy/old/*", "exclude": true}, {"/": "/buy/*"}]"#
        #expect(try outcome(components, "https://example.com/buy/old/1") == .exclude)
        #expect(try outcome(components, "https://example.com/buy/new/1") == .match)
    }

    @Test func componentMatchesOnlyWhenAllKeysMatch() throws {
        let components = ##"[{"/": "/p", "?": {"a": "1"}, "#": "f"}]"##
        #expect(try outcome(components, "https://example.com/p?a=1#f") == .match)
        #expect(try outcome(components, "https://example.com/p?a=1#g") == .noMatch)
        #expect(try outcome(components, "https://example.com/p?a=2#f") == .noMatch)
    }

    @Test func decisionNamesTheDecidingComponent() throws {
        let file = try fileWithComponents(#"[{"/": "/help"}, {"/": "/buy/*"}]"#)
        let decision = AssociationMatcher(file: file, domain: testDomain).decide(appID: testAppID, url: "https://example.com/buy/1")
        #expect(decision.description == #"match by components[1] {"/":"/buy/*"}"#)
    }

    // MARK: Domain and app

    @Test func urlOnAnotherHostNeverMatches() throws {
        #expect(try outcome(#"[{"/": "*"}]"#, "https://other.example/buy") == .noMatch)
        #expect(try outcome(#"[{"/": "*"}]"#, "https://sub.example.com/buy") == .noMatch)
    }

    @Test func hostComparisonIgnoresCase() throws {
        #expect(try outcome(#"[{"/": "*"}]"#, "https://EXAMPLE.com/buy") == .match)
    }

    @Test func appNotInFileNeverMatches() throws {
        let file = try fileWithComponents(#"[{"/": "*"}]"#)
        #expect(AssociationMatcher(file: file, domain: testDomain).decide(appID: "ZZZZZ99999.other", url: "https://example.com/").outcome == .noMatch)
    }

    @Test func singularAppIDKeyIsRead() throws {
        let file = try AssociationFileParser.parse(text: #"{"applinks": {"details": [{"appID": "ABCDE12345.com.example.app", "components": [{"/": "/x"}]}]}}"#)
        #expect(AssociationMatcher(file: file, domain: testDomain).decide(appID: testAppID, url: "https://example.com/x").outcome == .match)
    }

    // MARK: Substitution variables

    @Test func userDefinedVariableMatchesItsAlternatives() throws {
        let extra = #""substitutionVariables": {"food": ["pizza", "burger*"]}, "#
        #expect(try outcome(#"[{"/": "/$(food)/order"}]"#, "https://example.com/pizza/order", appLinksExtra: extra) == .match)
        #expect(try outcome(#"[{"/": "/$(food)/order"}]"#, "https://example.com/burgers/order", appLinksExtra: extra) == .match)
        #expect(try outcome(#"[{"/": "/$(food)/order"}]"#, "https://example.com/salad/order", appLinksExtra: extra) == .noMatch)
    }

    @Test func builtInRegionAndLangVariablesUseShippedISOLists() throws {
        let components = #"[{"/": "/$(lang)_$(region)/*"}]"#
        #expect(try outcome(components, "https://example.com/en_US/home") == .match)
        #expect(try outcome(components, "https://example.com/fr_CA/") == .match)
        #expect(try outcome(components, "https://example.com/xx_US/home") == .noMatch)
        #expect(try outcome(components, "https://example.com/en_QQ/home") == .noMatch)
    }

    @Test func builtInCharacterClassVariablesMatchOneCharacter() throws {
        #expect(try pathOutcome("/v$(digit)", "/v7") == .match)
        #expect(try pathOutcome("/v$(digit)", "/v77") == .noMatch)
        #expect(try pathOutcome("/$(upper)$(lower)", "/Ab") == .match)
        #expect(try pathOutcome("/$(xdigit)$(alnum)$(alpha)", "/fZq") == .match)
        #expect(try pathOutcome("/$(xdigit)", "/g") == .noMatch)
    }

    @Test func undefinedVariableNeverMatches() throws {
        #expect(try pathOutcome("/$(nope)/*", "/x/1") == .noMatch)
    }

    // MARK: Legacy format

    @Test func legacyPathsAreTriedInOrderWithNotExcluding() throws {
        let file = try AssociationFileParser.parse(text: #"{"applinks": {"apps": [], "details": [{"appID": "ABCDE12345.com.example.app", "paths": ["NOT /buy/old/*", "/buy/*"]}]}}"#)
        let matcher = AssociationMatcher(file: file, domain: testDomain)
        #expect(matcher.decide(appID: testAppID, url: "https://example.com/buy/old/2").outcome == .exclude)
        #expect(matcher.decide(appID: testAppID, url: "https://example.com/buy/2").outcome == .match)
        #expect(matcher.decide(appID: testAppID, url: "https://example.com/help").outcome == .noMatch)
    }

    @Test func legacyPathsCompareOnlyThePath() throws {
        let file = try AssociationFileParser.parse(text: #"{"applinks": {"apps": [], "details": [{"appID": "ABCDE12345.com.example.app", "paths": ["/buy/*"]}]}}"#)
        let matcher = AssociationMatcher(file: file, domain: testDomain)
        #expect(matcher.decide(appID: testAppID, url: "https://example.com/buy/1?x=2#y").outcome == .match)
    }

    @Test func componentsTakePrecedenceOverLegacyPathsInOneEntry() throws {
        let file = try AssociationFileParser.parse(text: #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/new"}], "paths": ["/old"]}]}}"#)
        let matcher = AssociationMatcher(file: file, domain: testDomain)
        #expect(matcher.decide(appID: testAppID, url: "https://example.com/new").outcome == .match)
        #expect(matcher.decide(appID: testAppID, url: "https://example.com/old").outcome == .noMatch)
    }

    // MARK: Parser tolerance

    @Test func unknownKeysAreTolerated() throws {
        let components = #"[{"/": "/x", "future": 1}]"#
        #expect(try outcome(components, "https://example.com/x", appLinksExtra: #""later": true, "#) == .match)
    }

    @Test func webcredentialsAndAppclipsAreRead() throws {
        let file = try AssociationFileParser.parse(text: #"{"webcredentials": {"apps": ["ABCDE12345.a"]}, "appclips": {"apps": ["ABCDE12345.a.Clip"]}}"#)
        #expect(file.webCredentials?.apps == ["ABCDE12345.a"])
        #expect(file.appClips?.apps == ["ABCDE12345.a.Clip"])
    }

    // MARK: The oldest details layout

    /// Before the array, `details` was an object keyed by app ID. Source: Apple's example in WWDC
    /// 2015 session 509, "Seamless Linking to Your App" (https://developer.apple.com/videos/wwdc/2015/?id=509),
    /// as transcribed in https://gist.github.com/mat/e35393e9dfd9d7fb0972; iOS still honours it.
    static let dictionaryLayout = #"{"applinks": {"apps": [], "details": {"9JA89QQLNQ.com.apple.wwdc": {"paths": ["/wwdc/news/", "/videos/wwdc/2015/*"]}, "ABCDE12345.com.example.app": {"paths": ["NOT /buy/old/*", "/buy/*"]}}}}"#

    @Test func detailsKeyedByAppIDAreReadAsOneEntryPerApp() throws {
        let file = try AssociationFileParser.parse(text: Self.dictionaryLayout)
        let details = try #require(file.appLinks?.details)
        #expect(details.map(\.appIDs) == [["9JA89QQLNQ.com.apple.wwdc"], [testAppID]])
        #expect(details.map(\.legacyPaths) == [["/wwdc/news/", "/videos/wwdc/2015/*"], ["NOT /buy/old/*", "/buy/*"]])
    }

    @Test func detailsKeyedByAppIDDecideAsTheArrayLayoutDoes() throws {
        let dictionary = try AssociationFileParser.parse(text: Self.dictionaryLayout)
        let array = try AssociationFileParser.parse(text: #"{"applinks": {"apps": [], "details": [{"appID": "9JA89QQLNQ.com.apple.wwdc", "paths": ["/wwdc/news/", "/videos/wwdc/2015/*"]}, {"appID": "ABCDE12345.com.example.app", "paths": ["NOT /buy/old/*", "/buy/*"]}]}}"#)
        let urls = ["https://example.com/wwdc/news/", "https://example.com/videos/wwdc/2015/509", "https://example.com/buy/old/1",
                    "https://example.com/buy/2", "https://example.com/help"]
        for appID in ["9JA89QQLNQ.com.apple.wwdc", testAppID, "OTHER12345.com.example.other"] {
            for url in urls {
                let expected = ReferenceMatcher(file: array, domain: testDomain).decide(appID: appID, url: url)
                #expect(AssociationMatcher(file: dictionary, domain: testDomain).decide(appID: appID, url: url) == expected, "\(appID) \(url)")
                #expect(ReferenceMatcher(file: dictionary, domain: testDomain).decide(appID: appID, url: url) == expected, "\(appID) \(url)")
            }
        }
        #expect(AssociationMatcher(file: dictionary, domain: testDomain).decide(appID: testAppID, url: "https://example.com/buy/old/1").outcome == .exclude)
        #expect(AssociationMatcher(file: dictionary, domain: testDomain).decide(appID: "9JA89QQLNQ.com.apple.wwdc", url: "https://example.com/videos/wwdc/2015/509").outcome == .match)
    }
}
