import Foundation
import HandoverProtocol
import PropertyBased
import Testing

@Suite(.timeLimit(.minutes(5))) struct CallbackURLTests {
    static let nonce = Gen<Character?>.element(of: Array("abcXYZ019-_")).compactMap { $0 }.string(of: 1...43)
    static let uuid = Gen<Int>.int(in: 0...Int.max).array(of: 2...2).map { halves in
        UUID(uuidString: String(format: "%08X-%04X-%04X-%04X-%012llX", UInt32(truncatingIfNeeded: halves[0]),
                                UInt16(truncatingIfNeeded: halves[0] >> 32), UInt16(truncatingIfNeeded: halves[0] >> 48) & 0x0FFF | 0x4000,
                                UInt16(truncatingIfNeeded: halves[1]) & 0x3FFF | 0x8000, UInt64(halves[1] >> 16) & 0xFFFF_FFFF_FFFF))!
    }
    static let base = Gen<String?>.element(of: ["https://handover.example.com", "https://handover.example.com/",
                                                "http://127.0.0.1:8080", "https://example.org/fleet"]).compactMap { $0 }

    @Test func theURLHasTheDocumentedShape() {
        let run = UUID(uuidString: "6F1C4D7E-2B0A-4E55-9C3B-0D8E6A1F2B3C")!
        let item = UUID(uuidString: "0A1B2C3D-4E5F-4A6B-8C7D-8E9FA0B1C2D3")!
        let url = CallbackURL(run: run, item: item, outcome: .error, nonce: "n0nce")
        #expect(url.text(base: URL(string: "https://handover.example.com/")!)
                == "https://handover.example.com/ulc/cb/6f1c4d7e-2b0a-4e55-9c3b-0d8e6a1f2b3c/0a1b2c3d-4e5f-4a6b-8c7d-8e9fa0b1c2d3/error?n=n0nce")
    }

    /// What is built reads back as the same callback, under any base (with or without a path or
    /// a trailing slash).
    @Test func buildingThenReadingGivesTheSameCallback() async {
        let input = zip(Self.uuid, Self.uuid, Gen<CallbackOutcome?>.element(of: CallbackOutcome.allCases).compactMap { $0 },
                        Self.nonce, Self.base)
        await propertyCheck(count: 300, input: input) { run, item, outcome, nonce, base in
            let url = CallbackURL(run: run, item: item, outcome: outcome, nonce: nonce)
            #expect(CallbackURL(url.text(base: URL(string: base)!)) == url)
        }
    }

    @Test(arguments: [
        "https://h.example/ulc/cb/6f1c4d7e-2b0a-4e55-9c3b-0d8e6a1f2b3c/0a1b2c3d-4e5f-4a6b-8c7d-8e9fa0b1c2d3/success",  // no nonce
        "https://h.example/ulc/cb/6f1c4d7e-2b0a-4e55-9c3b-0d8e6a1f2b3c/0a1b2c3d-4e5f-4a6b-8c7d-8e9fa0b1c2d3/success?n=",  // empty nonce
        "https://h.example/ulc/cb/6f1c4d7e-2b0a-4e55-9c3b-0d8e6a1f2b3c/0a1b2c3d-4e5f-4a6b-8c7d-8e9fa0b1c2d3/maybe?n=x",  // outcome
        "https://h.example/ulc/xx/6f1c4d7e-2b0a-4e55-9c3b-0d8e6a1f2b3c/0a1b2c3d-4e5f-4a6b-8c7d-8e9fa0b1c2d3/success?n=x",  // prefix
        "https://h.example/ulc/cb/not-a-uuid/0a1b2c3d-4e5f-4a6b-8c7d-8e9fa0b1c2d3/success?n=x",
        "https://h.example/ulc/cb/0a1b2c3d-4e5f-4a6b-8c7d-8e9fa0b1c2d3/success?n=x",  // item missing
        "launcher://ulc/cb/6f1c4d7e-2b0a-4e55-9c3b-0d8e6a1f2b3c/0a1b2c3d-4e5f-4a6b-8c7d-8e9fa0b1c2d3/success?n=x",  // not http(s)
        "",
    ])
    func whatIsNotACallbackURLIsRefused(text: String) {
        #expect(CallbackURL(text) == nil)
    }

    /// Any text at all: reading never crashes, and what reads back builds to a URL that reads the same.
    @Test func anyTextReadsSafely() async {
        let text = Gen<Character?>.element(of: Array("htps:/ulcb?n=&#%0123456789abcdef-ABCDEF.ér \u{0}")).compactMap { $0 }.string(of: 0...120)
        await propertyCheck(count: 500, input: text) { text in
            if let url = CallbackURL(text) {
                #expect(CallbackURL(url.text(base: URL(string: "https://x.example")!)) == url)
            }
        }
    }

    /// Any query of percent-encoded items reads back the first `n` item's value, decoded,
    /// whatever the other items are and wherever it stands; any text at all reads without a
    /// crash, and what it gives is never empty.
    @Test func theNonceIsTheFirstNItemOfAnyQuery() async {
        let text = Gen<Character?>.element(of: Array("nab=&%+/ é0")).compactMap { $0 }.string(of: 0...8)
        let item = zip(Gen<String?>.element(of: ["n", "nn", "a", "n "]).compactMap { $0 }, text)
        let allowed = CharacterSet.urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&=+%"))
        await propertyCheck(count: 500, input: item.array(of: 0...5)) { items in
            let query = items.map { name, value in
                "\(name.addingPercentEncoding(withAllowedCharacters: allowed)!)=\(value.addingPercentEncoding(withAllowedCharacters: allowed)!)"
            }.joined(separator: "&")
            let expected = items.first { $0.0 == CallbackURL.nonceParameter }.flatMap { $0.1.isEmpty ? nil : $0.1 }
            #expect(CallbackURL.nonce(inQuery: query) == expected, "\(query)")
        }
        await propertyCheck(count: 500, input: text) { text in
            #expect(CallbackURL.nonce(inQuery: text)?.isEmpty != true)
        }
    }

    @Test func aNonceAmongOtherItemsIsFound() async {
        await propertyCheck(count: 300, input: zip(Self.nonce, Self.nonce)) { nonce, other in
            #expect(CallbackURL.nonce(inQuery: "x=\(other)&n=\(nonce)&n=\(other)") == nonce)
            #expect(CallbackURL.nonce(inQuery: "nn=\(other)&n=") == nil)
        }
    }
}
