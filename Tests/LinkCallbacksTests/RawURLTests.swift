import Foundation
import PropertyBased
import Testing
@testable import LinkCallbacks

/// The one strict URL reader: what it splits, what it refuses, and whom a refusal names.
@Suite(.timeLimit(.minutes(5))) struct RawURLTests {
    @Test func aBadEscapeIsBlamedOnTheWholeURLByDefault() {
        // A callback read as a URL of its own: its query items are not the caller's parameters.
        #expect(throws: LinkError(parameter: "x-cancel", problem: .invalidPercentEncoding,
                                  detail: "'%' at offset 21 is not followed by two hex digits",
                                  accepted: "%XX with hex digits, or %25 for a literal '%'")) {
            try RawURL("https://a.example/?q=%zz", parameter: "x-cancel")
        }
    }

    @Test(arguments: [
        ("app://x-callback-url/oob?x-cancel=%zz&p=v1", "x-cancel"),
        ("app://x-callback-url/oob?x-cancel=https://a.example/%2&p=v1", "x-cancel"),
        ("https://h.example/oob?a=1&x%2Dsuccess=%zz", "x-success"),
        ("https://h.example/oob#a=b&p=%g1", "p"),
        ("https://h.example/oob?%zz=1", "link"),
        ("https://h.example/oob?=%zz", "link"),
        ("https://h.example/o%zz?p=1", "link"),
        ("https://h.example/oob?flag%", "link"),
    ])
    func aBadEscapeInAParameterNamesThatParameterWhenAsked(text: String, parameter: String) {
        do {
            _ = try RawURL(text, parameter: "link", blamingQueryItems: true)
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.problem == .invalidPercentEncoding)
            #expect(error.parameter == parameter, "\(error)")
        }
    }

    @Test func fragmentParametersAreSplitAndDecodedAsQueryParametersAre() throws {
        let url = try RawURL("https://h.example/oob?a=1#p=v1.x&n=%41&flag", parameter: "link")
        let items = try url.fragmentParameters(parameter: "link")
        #expect(items.map(\.name) == ["p", "n", "flag"])
        #expect(items.map(\.value) == ["v1.x", "A", nil])
        #expect(try RawURL("https://h.example/oob", parameter: "link").fragmentParameters(parameter: "link").isEmpty)
    }

    /// Blaming a parameter changes whom an error names, never whether the text is read.
    @Test func blamingQueryItemsNeverChangesWhatIsAccepted() async {
        let text = Gen<Character?>.element(of: Array("ab%&=?#/:@+.-_~0123456789ABCDEFzg é\\")).compactMap { $0 }.string(of: 0...60)
        await propertyCheck(count: 500, input: text) { text in
            let plain = Result { () throws(LinkError) in try RawURL("https://h.example/" + text, parameter: "link") }
            let blaming = Result { () throws(LinkError) in try RawURL("https://h.example/" + text, parameter: "link", blamingQueryItems: true) }
            switch (plain, blaming) {
            case (.success(let a), .success(let b)):
                #expect(a == b)
            case (.failure(let a), .failure(let b)):
                #expect(a.problem == b.problem && a.detail == b.detail)
                if a.parameter != b.parameter { #expect(a.problem == .invalidPercentEncoding) }
            default:
                Issue.record("one reading accepted what the other refused: \(text.debugDescription)")
            }
        }
    }
}
