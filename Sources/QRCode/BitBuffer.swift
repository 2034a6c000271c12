/// A growing sequence of bits, written most significant bit first, as QR code data streams are.
struct BitBuffer: Equatable, Sendable {
    /// The bits, packed eight to a byte, first bit in the high bit of byte 0; unused low bits of
    /// the last byte are 0.
    private(set) var bytes: [UInt8] = []

    /// How many bits have been appended.
    private(set) var count = 0

    init() {}

    /// Appends the low `bitCount` bits of `value`, highest first.
    mutating func append(_ value: Int, bitCount: Int) {
        precondition((0...31).contains(bitCount) && value >= 0 && value >> bitCount == 0,
                     "value must fit in bitCount bits")
        for shift in stride(from: bitCount - 1, through: 0, by: -1) {
            appendBit((value >> shift) & 1 == 1)
        }
    }

    /// Appends one bit.
    mutating func appendBit(_ bit: Bool) {
        if count % 8 == 0 { bytes.append(0) }
        if bit { bytes[count / 8] |= 0x80 >> UInt8(count % 8) }
        count += 1
    }

    /// The bit at `index` (0 is the first appended).
    func bit(at index: Int) -> Bool {
        precondition(index >= 0 && index < count, "bit index out of range")
        return bytes[index / 8] & (0x80 >> UInt8(index % 8)) != 0
    }

    /// Reads `bitCount` bits starting at `index` as an unsigned number, the first bit highest.
    func value(at index: Int, bitCount: Int) -> Int {
        var result = 0
        for offset in 0..<bitCount { result = result << 1 | (bit(at: index + offset) ? 1 : 0) }
        return result
    }
}
