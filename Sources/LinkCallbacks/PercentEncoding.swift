/// Percent-encoding as RFC 3986 defines it, with no form-encoding surprises.
///
/// `+` is an ordinary character here, never a space: links built by this module encode `+` as
/// `%2B`, and links read by it keep a raw `+` as `+`.
public enum PercentEncoding {
    /// Encodes every byte outside RFC 3986's unreserved set (`A–Z a–z 0–9 - . _ ~`).
    ///
    /// This is the encoding for a URL nested inside a query value: `&`, `=`, `?`, `#`, `%` and
    /// `+` all come out encoded, so the outer link cannot be misread.
    public static func encodeUnreserved(_ text: String) -> String {
        var out = [UInt8]()
        out.reserveCapacity(text.utf8.count * 3)
        for byte in text.utf8 {
            if isUnreserved(byte) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes `%XX` sequences. Returns `nil` when a `%` is not followed by two hex digits, or
    /// when the decoded bytes are not UTF-8.
    public static func decode<S: StringProtocol>(_ text: S) -> String? {
        let utf8 = text.utf8
        guard utf8.contains(UInt8(ascii: "%")) else { return String(text) }
        var bytes = [UInt8]()
        bytes.reserveCapacity(utf8.count)
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%") {
                let first = utf8.index(after: index)
                guard first != utf8.endIndex else { return nil }
                let second = utf8.index(after: first)
                guard second != utf8.endIndex,
                      let high = hexValue(utf8[first]), let low = hexValue(utf8[second]) else { return nil }
                bytes.append(high << 4 | low)
                index = utf8.index(after: second)
            } else {
                bytes.append(byte)
                index = utf8.index(after: index)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Whether `byte` is in RFC 3986's unreserved set.
    @inlinable
    public static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)
}
