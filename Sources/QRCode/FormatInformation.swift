/// The BCH-protected fields that tell a reader how to read the rest of the symbol.
enum FormatInformation {
    /// The 15 format information bits for a level and mask (ISO/IEC 18004 section 7.9.1): the
    /// level's 2 bits and the mask's 3, then 10 BCH(15,5) check bits from generator 0x537, all
    /// XORed with 0x5412 so the result is never all zero.
    static func bits(correction: ErrorCorrectionLevel, mask: Mask) -> Int {
        let data = correction.formatBits << 3 | mask.reference
        return (data << 10 | bchRemainder(data, checkBits: 10, generator: 0x537)) ^ 0x5412
    }

    /// The 18 version information bits for versions 7 and up (section 7.10): the 6-bit version,
    /// then 12 BCH(18,6) check bits from generator 0x1F25. Version 7 gives 0x07C94.
    static func versionBits(version: Int) -> Int {
        precondition((7...40).contains(version), "only versions 7 to 40 carry version information")
        return version << 12 | bchRemainder(version, checkBits: 12, generator: 0x1F25)
    }

    /// The remainder of data · x^checkBits divided by the generator polynomial over GF(2).
    private static func bchRemainder(_ data: Int, checkBits: Int, generator: Int) -> Int {
        var remainder = data << checkBits
        let generatorDegree = Int.bitWidth - 1 - generator.leadingZeroBitCount
        for shift in stride(from: Int.bitWidth - 1 - remainder.leadingZeroBitCount, through: generatorDegree, by: -1)
        where remainder & (1 << shift) != 0 {
            remainder ^= generator << (shift - generatorDegree)
        }
        return remainder
    }
}
