import Testing
@testable import UniversalLinks

let testAppID = "ABCDE12345.com.example.app"
let testDomain = "example.com"

/// A file whose single details entry for `testAppID` has `componentsJSON` as its components.
func fileWithComponents(_ componentsJSON: String, detailsExtra: String = "", appLinksExtra: String = "") throws -> AssociationFile {
    try AssociationFileParser.parse(text: """
        {"applinks": {\(appLinksExtra)"details": [{"appIDs": ["\(testAppID)"], \(detailsExtra)"components": \(componentsJSON)}]}}
        """)
}

/// The outcome for `url` under a one-entry file with `componentsJSON`.
func outcome(_ componentsJSON: String, _ url: String, detailsExtra: String = "", appLinksExtra: String = "") throws -> AssociationOutcome {
    let file = try fileWithComponents(componentsJSON, detailsExtra: detailsExtra, appLinksExtra: appLinksExtra)
    return AssociationMatcher(file: file, domain: testDomain).decide(appID: testAppID, url: url).outcome
}

/// The outcome for a path under a single path pattern.
func pathOutcome(_ pattern: String, _ path: String, _ extra: String = "") throws -> AssociationOutcome {
    try outcome(#"[{"/": "\#(pattern)"\#(extra)}]"#, "https://example.com" + path)
}
