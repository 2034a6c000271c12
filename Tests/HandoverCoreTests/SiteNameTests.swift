import Foundation
@testable import HandoverCore
import PropertyBased
import Testing

/// A site named as people write it (issue 66, item 3): printable text of any script, trimmed,
/// shown as written, compared ignoring case; the separators of the settings that name sites refused.
@Suite struct SiteNameTests {
    @Test(arguments: [
        (" Ward 7 ", "Ward 7"), ("ICU", "ICU"), ("Station Ä", "Station Ä"), ("Salle d’Été", "Salle d’Été"),
        ("小児科 3F", "小児科 3F"), ("Ward-3", "Ward-3"), ("\u{00A0}ED\u{00A0}", "ED"),
    ])
    func aNameIsKeptAsWrittenTrimmed(written: String, shown: String) throws {
        #expect(try SiteName(written).text == shown)
    }

    @Test func namesMatchIgnoringCaseAndNormalisation() throws {
        #expect(try SiteName("Ward 7") == SiteName("WARD 7"))
        #expect(try SiteName("Station Ä") == SiteName("station ä"))
        #expect(try SiteName("Station A\u{308}") == SiteName("Station \u{C4}"), "decomposed and composed Ä are one site")
        #expect(try SiteName("STRASSE") == SiteName("Straße"), "full case folding")
        #expect(try SiteName("Ward 7") != SiteName("Ward 70"))
        #expect(try SiteName("Ward 7").matches(" ward 7") && !SiteName("Ward 7").matches(nil))
        #expect(try Set([SiteName("ICU"), SiteName("icu")]).count == 1)
    }

    @Test(arguments: [
        ("", "is empty"), ("   ", "is empty"),
        (String(repeating: "W", count: 65), "is 65 characters long"),
        ("ICU,ER", "has ','"), ("ICU=9h", "has '='"), ("ICU+ER", "has '+'"), ("ops@ICU", "has '@'"),
        ("Ward\t7", "U+0009"), ("Ward\u{7}", "U+0007"), ("Ward\u{202E}7", "U+202E"), ("Ward\u{E000}", "U+E000"),
        ("Ward\u{2028}7", "U+2028"),
    ])
    func aNameThatCannotBeOneIsRefusedSayingWhy(written: String, problem: String) {
        #expect {
            try SiteName(written)
        } throws: { error in
            guard let refusal = error as? SiteNameError else { return false }
            return refusal.problem.contains(problem) && refusal.description.contains("is not a site name")
                && refusal.description.contains(SiteName.acceptedForm)
        }
    }

    @Test func theLimitCountsCodePointsAsTheAPIsSchemaDoes() throws {
        #expect(try SiteName(String(repeating: "Ä", count: 64)).text.unicodeScalars.count == 64)
        #expect(throws: SiteNameError.self) { try SiteName(String(repeating: "A\u{308}", count: 33)) }
        #expect(try SiteName("👩‍⚕️ Ward").text == "👩‍⚕️ Ward", "the zero-width joiner of an emoji sequence is kept")
    }

    /// Any text either reads as a name whose key is stable, or is refused with a SiteNameError.
    @Test func anyTextIsReadOrRefusedByName() async {
        let text = Gen<Character?>.element(of: Array("aZ 7-Äß,=+@\t\u{0}\u{202E}日é.")).compactMap { $0 }.string(of: 0...70)
        await propertyCheck(count: 500, input: text) { written in
            do {
                let name = try SiteName(written)
                #expect(name.text == written.trimmingCharacters(in: .whitespacesAndNewlines))
                #expect(try SiteName(name.text.uppercased()) == name, "\(written)")
                #expect(SiteName.key(of: name.key) == name.key, "a key is its own key")
            } catch {
                #expect(error is SiteNameError)
            }
        }
    }
}
