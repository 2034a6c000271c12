import Foundation
import Testing
@testable import LinkCallbacks

@Suite(.timeLimit(.minutes(5))) struct Base64URLTests {
    @Test func encodesWithoutPaddingAndWithTheURLAlphabet() {
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
        #expect(Base64URL.encode(Array("f".utf8)) == "Zg")
        #expect(Base64URL.encode(Array("foobar".utf8)) == "Zm9vYmFy")
    }

    @Test(arguments: ["Zg==", "Zg=", "+/8", "Zm9v YmFy", "Z", "Zh", "Zm9vYmF\n"])
    func rejectsPaddingPlainAlphabetWhitespaceBadLengthAndStrayBits(text: String) {
        #expect(throws: LinkError.self) { try Base64URL.decode(text) }
    }

    @Test func decodesWhatItEncodes() throws {
        #expect(try Base64URL.decode("-_8") == Data([0xFB, 0xFF]))
        #expect(try Base64URL.decode("") == Data())
    }
}
