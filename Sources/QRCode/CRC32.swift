/// CRC-32 as PNG uses it for chunks (ISO 3309 / ITU-T V.42: polynomial 0xEDB88320 reflected,
/// initial value and final XOR 0xFFFFFFFF). The CRC of the bytes "IEND" is 0xAE426082.
struct CRC32: Sendable {
    private static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    private var state: UInt32 = 0xFFFF_FFFF

    init() {}

    /// Feeds more bytes.
    mutating func update(_ bytes: some Sequence<UInt8>) {
        for byte in bytes { state = Self.table[Int((state ^ UInt32(byte)) & 0xFF)] ^ (state >> 8) }
    }

    /// The checksum of everything fed so far.
    var value: UInt32 { state ^ 0xFFFF_FFFF }

    /// The checksum of `bytes`.
    static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }
}
