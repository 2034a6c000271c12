/// Adler-32, the checksum that ends a zlib stream (RFC 1950): two sums modulo 65521, the second
/// of the running first. The Adler-32 of no bytes is 1; of "Wikipedia", 0x11E60398.
struct Adler32: Sendable {
    private static let modulus: UInt32 = 65521
    private var a: UInt32 = 1
    private var b: UInt32 = 0

    init() {}

    /// Feeds more bytes.
    mutating func update(_ bytes: some Sequence<UInt8>) {
        var pending = 0
        for byte in bytes {
            a += UInt32(byte)
            b += a
            pending += 1
            if pending == 5552 {  // the most bytes before b can overflow 32 bits
                a %= Self.modulus
                b %= Self.modulus
                pending = 0
            }
        }
        a %= Self.modulus
        b %= Self.modulus
    }

    /// The checksum of everything fed so far.
    var value: UInt32 { b << 16 | a }

    /// The checksum of `bytes`.
    static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var adler = Adler32()
        adler.update(bytes)
        return adler.value
    }
}
