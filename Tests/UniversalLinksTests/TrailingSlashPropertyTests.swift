import PropertyBased
import Testing
@testable import UniversalLinks

/// iOS ignores every trailing slash of a path pattern and of a URL's path (swcutil, macOS 27;
/// issue 63, finding 14; docs/universal-links.md, "Slashes"): for any pattern and any path,
/// adding trailing slashes to either never changes the decision, in `components` and in
/// legacy `paths`, for the matcher and the reference matcher alike.
@Suite(.timeLimit(.minutes(5))) struct TrailingSlashPropertyTests {
    /// A pattern's pieces, wildcards and variables included.
    static let patternPieces = ["buy", "a", "42", "*", "?", "?*", "$(digit)", "%C3%A9", "/", "//", "x*y", ".", "-"]
    /// A URL path's pieces (no `?` or `#`, which would end the path).
    static let pathPieces = ["buy", "a", "42", "*", "%C3%A9", "/", "//", "x*y", ".", "-", "4"]

    /// A leading slash, then pieces chosen by `numbers`.
    static func text(_ numbers: [Int], _ pieces: [String]) -> String {
        "/" + numbers.map { pieces[$0 % pieces.count] }.joined()
    }

    /// Each matcher's outcome and the rule that decided it (by name: its text differs by the slashes added).
    static func decisions(pattern: String, path: String) throws -> [String] {
        let components = try AssociationFileParser.parse(text: #"{"applinks":{"details":[{"appIDs":["\#(testAppID)"],"components":[{"/":"\#(pattern)"}]}]}}"#)
        let legacy = try AssociationFileParser.parse(text: #"{"applinks":{"apps":[],"details":[{"appID":"\#(testAppID)","paths":["\#(pattern)"]}]}}"#)
        let url = "https://example.com" + path
        return [components, legacy].flatMap { file in
            [AssociationMatcher(file: file, domain: testDomain).decide(appID: testAppID, url: url),
             ReferenceMatcher(file: file, domain: testDomain).decide(appID: testAppID, url: url)]
        }.map { "\($0.outcome) \($0.rule?.name ?? "")" }
    }

    @Test func trailingSlashesOnEitherSideNeverChangeADecision() async {
        await propertyCheck(count: 500, input: Gen.int(in: 0...1_000).array(of: 0...5), Gen.int(in: 0...1_000).array(of: 0...5),
                            Gen.int(in: 0...3), Gen.int(in: 0...3)) { patternNumbers, pathNumbers, patternSlashes, pathSlashes in
            let pattern = Self.text(patternNumbers, Self.patternPieces), path = Self.text(pathNumbers, Self.pathPieces)
            do {
                let plain = try Self.decisions(pattern: pattern, path: path)
                let slashed = try Self.decisions(pattern: pattern + String(repeating: "/", count: patternSlashes),
                                                 path: path + String(repeating: "/", count: pathSlashes))
                #expect(slashed == plain, "\(pattern) + \(patternSlashes) slashes against \(path) + \(pathSlashes) slashes")
            } catch {
                Issue.record("\(pattern): \(error)")
            }
        }
    }
}
