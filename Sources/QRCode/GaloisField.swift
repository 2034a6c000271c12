/// Arithmetic in GF(256), the field of 256 elements QR codes use for error correction.
///
/// Elements are bytes. Addition is XOR; multiplication is polynomial multiplication modulo the
/// primitive polynomial x⁸ + x⁴ + x³ + x² + 1 (0x11D), done here with log and antilog tables of
/// the generator α = 2.
enum GaloisField {
    /// The primitive polynomial the standard fixes: x⁸ + x⁴ + x³ + x² + 1.
    static let primitivePolynomial = 0x11D

    /// `exponent[i]` is αⁱ, for i in 0..<510 (doubled so a sum of two logarithms needs no modulo).
    static let exponent: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 510)
        var value = 1
        for power in 0..<255 {
            table[power] = UInt8(value)
            table[power + 255] = UInt8(value)
            value <<= 1
            if value & 0x100 != 0 { value ^= primitivePolynomial }
        }
        return table
    }()

    /// `logarithm[x]` is the i with αⁱ = x, for x in 1...255 (`logarithm[0]` is unused).
    static let logarithm: [Int] = {
        var table = [Int](repeating: 0, count: 256)
        for power in 0..<255 { table[Int(exponent[power])] = power }
        return table
    }()

    /// a · b in GF(256).
    @inline(__always)
    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        if a == 0 || b == 0 { return 0 }
        return exponent[logarithm[Int(a)] + logarithm[Int(b)]]
    }

    /// αⁿ for any n ≥ 0.
    static func power(_ n: Int) -> UInt8 { exponent[n % 255] }
}
