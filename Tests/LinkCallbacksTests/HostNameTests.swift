import Foundation
import Testing
@testable import LinkCallbacks

@Suite(.timeLimit(.minutes(5))) struct HostNameTests {
    /// Sample strings from RFC 3492 §7.1 and common IDNA examples.
    @Test(arguments: [
        ("bücher", "bcher-kva"),
        ("ü", "tda"),
        ("他们为什么不说中文", "ihqwcrb4cv8a8dqg056pqjye"),
        ("Pročprostěnemluvíčesky".lowercased(), "proprostnemluvesky-uyb24dma41a"),
        ("почемужеонинеговорятпорусски", "b1abfaaepdrnnbgefbadotcwatmq2g4l"),
        ("\u{0430}ppa", "ppa-5cd"),
    ])
    func punycodeMatchesPublishedVectors(unicode: String, encoded: String) {
        #expect(Punycode.encode(Array(unicode.unicodeScalars)) == encoded)
        #expect(Punycode.decode(encoded).map { String(String.UnicodeScalarView($0)) } == unicode)
    }

    @Test func unicodeHostsBecomeLowerCaseASCII() throws {
        #expect(try HostName("BÜCHER.Example", parameter: "h").ascii == "xn--bcher-kva.example")
        #expect(try HostName("\u{0430}ppa.com", parameter: "h").ascii == "xn--ppa-5cd.com")
        #expect(try HostName("münchen。de", parameter: "h").ascii == "xn--mnchen-3ya.de")
    }

    @Test func ourIDNAAgreesWithFoundationOnOrdinaryHosts() throws {
        for host in ["bücher.example", "\u{0430}ppa.com", "日本語.jp", "example.com"] {
            let foundation = URL(string: "https://\(host)/")?.host
            #expect(try HostName(host, parameter: "h").ascii == foundation, "\(host)")
        }
    }

    @Test(arguments: ["1.2.3.4", "[::1]", "0x7f000001", "2130706433", "1.2.3.0x4"])
    func ipAddressesInEveryFormAreRecognised(host: String) {
        #expect(HostName.isIPAddress(host))
    }

    @Test(arguments: ["appa.com", "1password.com", "a1.b2"])
    func namesWithDigitsAreNotIPAddresses(host: String) {
        #expect(!HostName.isIPAddress(host))
    }
}
