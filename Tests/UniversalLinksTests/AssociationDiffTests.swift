import Testing
@testable import UniversalLinks

@Suite(.timeLimit(.minutes(5))) struct AssociationDiffTests {
    static func parse(_ text: String) throws -> AssociationFile { try AssociationFileParser.parse(text: text) }

    @Test func probesFillEachWildcardQueryItemAndFragment() throws {
        let file = try Self.parse(##"{"applinks":{"substitutionVariables":{"shop":["store","outlet"]},"details":[{"appIDs":["ABCDE12345.com.example.app"],"components":[{"/":"/$(shop)/*","?":{"id":"?*","ref":"a"},"#":"top"}]},{"appID":"ABCDE12345.com.example.app","paths":["NOT /old/*"]}]}}"##)
        let urls = AssociationProbes.urls(for: [file], domain: "example.com")
        #expect(urls.contains("https://example.com/store/x1?id=xx1&ref=a#top"), "\(urls)")
        #expect(urls.contains("https://example.com/store/?id=xx1&ref=a#top"), "\(urls)")
        #expect(urls.contains("https://example.com/store/x1?ref=a#top"), "\(urls)")
        #expect(urls.contains("https://example.com/store/x1?id=xx1#top"), "\(urls)")
        #expect(urls.contains("https://example.com/old/x1"), "\(urls)")
        #expect(Set(urls).count == urls.count)
    }

    @Test func aChangedOutcomeAndAChangedRuleAreChangesAndAnUnchangedDecisionIsNot() throws {
        let old = try Self.parse(#"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.app"],"components":[{"/":"/buy/*"},{"/":"/help"}]}]}}"#)
        let new = try Self.parse(#"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.app"],"components":[{"/":"/buy/1"},{"/":"/buy/*","exclude":true},{"/":"/help"}]}]}}"#)
        let changes = AssociationDiff.changes(from: old, to: new, domain: "example.com",
                                              urls: ["https://example.com/buy/1", "https://example.com/buy/2", "https://example.com/help"])
        #expect(changes.map(\.url) == ["https://example.com/buy/1", "https://example.com/buy/2"])
        #expect(changes[0].old.outcome == .match && changes[0].new.outcome == .match)
        #expect(changes[1].new.outcome == .exclude)
    }

    @Test func anAppOnlyOneFileNamesIsCompared() throws {
        let old = try Self.parse(#"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.app"],"components":[{"/":"/*"}]}]}}"#)
        let new = try Self.parse(#"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.app","ABCDE12345.com.example.new"],"components":[{"/":"/*"}]}]}}"#)
        let changes = AssociationDiff.changes(from: old, to: new, domain: "example.com", urls: ["https://example.com/a"])
        #expect(changes.map(\.appID) == ["ABCDE12345.com.example.new"])
        #expect(changes.first?.description.contains("no match  →  match by details[0].components[0]") == true, "\(changes)")
    }

    @Test func copiesThatDifferOnlyInKeyOrderAgree() throws {
        let origin = try Self.parse(#"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.app"],"components":[{"/":"/a","?":{"x":"1"}}]}]},"webcredentials":{"apps":["ABCDE12345.com.example.app"]}}"#)
        let copy = try Self.parse(#"{"webcredentials":{"apps":["ABCDE12345.com.example.app"]},"applinks":{"details":[{"components":[{"?":{"x":"1"},"/":"/a"}],"appIDs":["ABCDE12345.com.example.app"]}]}}"#)
        #expect(AssociationFileComparison.differences(origin: origin, copy: copy).isEmpty)
    }

    @Test func anAddedAppAndAChangedSectionAreNamed() throws {
        let origin = try Self.parse(#"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.app","ABCDE12345.com.example.new"],"components":[{"/":"/a"}]}]},"webcredentials":{"apps":[]}}"#)
        let copy = try Self.parse(#"{"applinks":{"details":[{"appID":"ABCDE12345.com.example.app","paths":["/a"]}]}}"#)
        let differences = AssociationFileComparison.differences(origin: origin, copy: copy)
        #expect(differences.map(\.kind) == [
            .rulesDiffer(origin: [#"{"/":"/a"}"#], copy: [#""/a""#]),
            .onlyInOrigin,
            .otherSection("webcredentials"),
        ])
    }
}

