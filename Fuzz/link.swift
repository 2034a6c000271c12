// libFuzzer harness for LinkCallbacks: compiled with the module's sources by scripts/fuzz.sh.
//
// Every input is read as a link by the parser, by the default policy and by a strict policy.
// Invariants checked (a failure traps, which libFuzzer reports as a crash):
//   - an accepted link rebuilds to text that is accepted again, as the same link;
//   - a parsed ULC round-trips through its text;
//   - percent-encoding and base64url round-trip on the raw bytes.
import Foundation

let strictPolicy = CallbackPolicy(allowedHosts: try? HostAllowlist(["appa.com", "*.launcher.example"]),
                                  allowedCustomSchemes: ["launcher"])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let text = String(decoding: bytes, as: UTF8.self)

    for candidate in [text, "https://b.com/l?ulc-success=" + text + "&ulc-error=https%3A%2F%2Fa.com"] {
        if case .universalLinkCallback(let ulc)? = try? Link(parsing: candidate) {
            precondition((try? UniversalLinkCallback(parsing: ulc.text)) == ulc, "ULC round trip failed")
        }
        for policy in [CallbackPolicy.default, strictPolicy] {
            if let link = try? policy.evaluate(candidate) {
                precondition((try? policy.evaluate(link.text)) == link, "an accepted link's text is not accepted as the same link")
            }
        }
    }
    precondition(PercentEncoding.decode(PercentEncoding.encodeUnreserved(text)) == text, "percent round trip failed")
    precondition((try? Base64URL.decode(Base64URL.encode(bytes))) == Data(bytes), "base64url round trip failed")
    if let decoded = try? Base64URL.decode(text) {
        precondition(Base64URL.encode(decoded) == text, "base64url accepted a non-canonical text")
    }
    _ = try? HostName(text, parameter: "host")
    return 0
}
