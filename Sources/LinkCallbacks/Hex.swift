/// Lower-case hexadecimal, two digits per byte: how digests are written where text is wanted
/// (stored key hashes, entity tags).
///
/// `String(format: "%02x", byte)` per byte goes through Foundation's formatter; on a server that
/// hashes the API key of every request, that cost more than the hash itself.
public enum Hex {
    /// `bytes` as lower-case hex, `"0a1b…"`.
    public static func lowercase(_ bytes: some Sequence<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static let digits = Array("0123456789abcdef".utf8)
}
