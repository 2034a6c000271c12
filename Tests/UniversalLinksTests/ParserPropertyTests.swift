import Testing
import PropertyBased
@testable import UniversalLinks

/// Builds a JSON value from a list of numbers, biased towards the keys and shapes of association
/// files, so that a generator of integer arrays (which shrinks well) yields arbitrary JSON.
struct JSONBuilder {
    static let keys = ["applinks", "details", "appIDs", "appID", "components", "paths", "apps", "defaults",
                       "substitutionVariables", "/", "?", "#", "exclude", "caseSensitive", "percentEncoded", "webcredentials", "x"]
    static let texts = ["*", "?*", "/buy/*", "/$(lang)/*", "$(x)", "$(", "%zz", "%C3%A9", "NOT /a", "", "ABCDE12345.com.example.app", "a=1", "café"]

    var numbers: [Int]
    var index = 0

    mutating func next() -> Int {
        defer { index += 1 }
        return index < numbers.count ? numbers[index] : 0
    }

    mutating func value(depth: Int) -> JSONValue {
        let n = next()
        switch n % 9 {
        case 0: return .null
        case 1: return .bool(n % 2 == 0)
        case 2: return .number(String(n % 7 - 3))
        case 3, 4: return .string(Self.texts[n % Self.texts.count])
        case 5, 6:
            guard depth > 0 else { return .string("leaf") }
            let count = next() % 4
            return .array((0..<count).map { _ in value(depth: depth - 1) })
        default:
            guard depth > 0 else { return .string("*") }
            let count = next() % 5
            return .object((0..<count).map { _ in (Self.keys[next() % Self.keys.count], value(depth: depth - 1)) })
        }
    }

    static func build(_ numbers: [Int]) -> JSONValue {
        var builder = JSONBuilder(numbers: numbers)
        return .object([("applinks", builder.value(depth: 6)), ("webcredentials", builder.value(depth: 2))])
    }
}

@Suite(.timeLimit(.minutes(5))) struct ParserPropertyTests {
    let urls = ["https://example.com/", "https://example.com/buy/1?a=1&a=2#f", "https://example.com/caf%C3%A9?q=%zz", "https://EXAMPLE.com/a%20b/"]

    @Test func parserValidatorAndMatcherNeverCrashOnArbitraryAssociationShapedJSON() async {
        await propertyCheck(count: 300, input: Gen.int(in: 0...10_000).array(of: 0...80)) { numbers in
            let json = JSONBuilder.build(numbers)
            let text = json.compactText
            // Reading back what was written gives the same value.
            #expect((try? JSONParser.parse(text)) == json)
            _ = AssociationValidator.validate(Array(text.utf8))
            guard let file = try? AssociationFileParser.parse(text: text) else {
                Issue.record("an object did not parse: \(text)")
                return
            }
            let matcher = AssociationMatcher(file: file, domain: "example.com")
            for appID in matcher.appIDs + [testAppID] {
                for url in urls {
                    let decision = matcher.decide(appID: appID, url: url)
                    #expect((decision.outcome == .noMatch) == (decision.rule == nil))
                }
            }
        }
    }

    @Test func parserNeverCrashesOnArbitraryBytes() async {
        await propertyCheck(count: 500, input: Gen.int(in: 0...255).array(of: 0...120)) { numbers in
            let bytes = numbers.map { UInt8($0) }
            _ = try? AssociationFileParser.parse(bytes)
            _ = AssociationValidator.validate(bytes)
            _ = AssetLinksValidator.validate(bytes)
        }
    }

    @Test func parserNeverCrashesOnJSONLikeText() async {
        let alphabet = Array("{}[]:,\"\\ 0-1.eE+truefalsnu/?#*$()%aé\u{0}")
        await propertyCheck(count: 500, input: Gen.int(in: 0...(alphabet.count - 1)).array(of: 0...80)) { picks in
            let text = String(picks.map { alphabet[$0] })
            _ = try? AssociationFileParser.parse(text: text)
            _ = AssociationValidator.validate(Array(text.utf8))
        }
    }

    @Test func deepNestingIsRefusedNotRecursed() {
        let deep = String(repeating: "[", count: 100_000)
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(deep) }
    }

    @Test func wildcardPatternAgreesWithReferenceMatcher() async {
        // A naive recursive matcher over Unicode scalars is the reference for `*`, `?` and literals.
        func reference(_ p: ArraySlice<Character>, _ s: ArraySlice<Character>) -> Bool {
            guard let first = p.first else { return s.isEmpty }
            switch first {
            case "*": return reference(p.dropFirst(), s) || (!s.isEmpty && reference(p, s.dropFirst()))
            case "?": return !s.isEmpty && reference(p.dropFirst(), s.dropFirst())
            default: return s.first == first && reference(p.dropFirst(), s.dropFirst())
            }
        }
        let patternAlphabet: [Character] = ["a", "b", "/", "*", "?", "é"]
        let subjectAlphabet: [Character] = ["a", "b", "/", "é"]
        await propertyCheck(count: 500, input: Gen.int(in: 0...5).array(of: 0...7), Gen.int(in: 0...3).array(of: 0...8)) { p, s in
            let pattern = p.map { patternAlphabet[$0] }, subject = s.map { subjectAlphabet[$0] }
            let compiled = WildcardPattern(String(pattern))
            #expect(compiled.matches(String(subject)) == reference(pattern[...], subject[...]), "pattern \(String(pattern)) subject \(String(subject))")
        }
    }
}
