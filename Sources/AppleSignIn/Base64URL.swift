import Foundation

/// Base64url without padding (RFC 4648 §5), as JWTs use it. Works on bytes, not on `Character`s:
/// decoding is on the path of every verification.
enum Base64URL {
    /// Encodes `bytes` as unpadded base64url.
    static func encode(_ bytes: some DataProtocol) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes unpadded base64url; `nil` when the text holds a character outside the alphabet
    /// (`+`, `/` and `=` included) or has an impossible length.
    static func decode(_ text: some StringProtocol) -> Data? {
        decode(utf8: Array(text.utf8)[...])
    }

    /// Decodes unpadded base64url from UTF-8 bytes.
    static func decode(utf8 input: ArraySlice<UInt8>) -> Data? {
        if input.count % 4 == 1 { return nil }
        var output = [UInt8]()
        output.reserveCapacity(input.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in input {
            let value = table[Int(byte)]
            guard value != 0xFF else { return nil }
            accumulator = (accumulator << 6) | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        return Data(output)
    }

    /// Maps an ASCII byte to its 6-bit value, 0xFF for bytes outside the base64url alphabet.
    private static let table: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8.enumerated() {
            table[Int(byte)] = UInt8(index)
        }
        return table
    }()
}
