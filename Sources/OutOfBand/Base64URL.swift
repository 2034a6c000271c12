import Foundation

/// Base64url without padding (RFC 4648 §5), strict: padding, `+`, `/`, white space, impossible
/// lengths and stray bits in the last character are refused, so every byte string has exactly
/// one accepted text. Internal: `LinkCallbacks` has a public type of the same name.
enum Base64URL {
    static func encode(_ data: some Sequence<UInt8>) -> String {
        let bytes = Array(data)
        var out = [UInt8]()
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= bytes.count {
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            out.append(alphabet[Int(chunk >> 18 & 63)])
            out.append(alphabet[Int(chunk >> 12 & 63)])
            out.append(alphabet[Int(chunk >> 6 & 63)])
            out.append(alphabet[Int(chunk & 63)])
            index += 3
        }
        switch bytes.count - index {
        case 1:
            let chunk = UInt32(bytes[index]) << 16
            out.append(alphabet[Int(chunk >> 18 & 63)])
            out.append(alphabet[Int(chunk >> 12 & 63)])
        case 2:
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
            out.append(alphabet[Int(chunk >> 18 & 63)])
            out.append(alphabet[Int(chunk >> 12 & 63)])
            out.append(alphabet[Int(chunk >> 6 & 63)])
        default:
            break
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes unpadded base64url text, throwing an ``OutOfBandError`` that names `field`.
    static func decode(_ text: some StringProtocol, field: String) throws(OutOfBandError) -> Data {
        func failure(_ detail: String) -> OutOfBandError {
            OutOfBandError(field: field, problem: .invalidBase64URL, detail: detail,
                           accepted: "base64url text (A–Z a–z 0–9 - _) with no '=' padding")
        }
        let input = Array(text.utf8)
        if input.count % 4 == 1 { throw failure("its length \(input.count) is not a length base64url produces") }
        var values = [UInt8]()
        values.reserveCapacity(input.count)
        for (offset, byte) in input.enumerated() {
            guard let value = decodeTable[Int(byte)] else {
                let shown = byte < 0x80 && byte >= 0x20 ? "'\(Character(Unicode.Scalar(byte)))'" : "byte \(byte)"
                throw failure("\(shown) at offset \(offset) is not in the base64url alphabet")
            }
            values.append(value)
        }
        var out = Data(capacity: input.count * 3 / 4)
        var index = 0
        while index + 4 <= values.count {
            let chunk = UInt32(values[index]) << 18 | UInt32(values[index + 1]) << 12
                | UInt32(values[index + 2]) << 6 | UInt32(values[index + 3])
            out.append(UInt8(chunk >> 16 & 0xFF))
            out.append(UInt8(chunk >> 8 & 0xFF))
            out.append(UInt8(chunk & 0xFF))
            index += 4
        }
        switch values.count - index {
        case 2:
            guard values[index + 1] & 0x0F == 0 else { throw failure("the last character carries stray bits") }
            out.append(values[index] << 2 | values[index + 1] >> 4)
        case 3:
            guard values[index + 2] & 0x03 == 0 else { throw failure("the last character carries stray bits") }
            out.append(values[index] << 2 | values[index + 1] >> 4)
            out.append((values[index + 1] & 0x0F) << 4 | values[index + 2] >> 2)
        default:
            break
        }
        return out
    }

    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let decodeTable: [UInt8?] = {
        var table = [UInt8?](repeating: nil, count: 256)
        for (value, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(value) }
        return table
    }()
}
