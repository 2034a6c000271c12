import Testing
@testable import QRCode

@Suite(.timeLimit(.minutes(5))) struct FormatInformationTests {
    /// All 32 format information strings, after the 0x5412 mask (ISO/IEC 18004 annex C, table C.1).
    static let table: [ErrorCorrectionLevel: [Int]] = [
        .low: [0b111011111000100, 0b111001011110011, 0b111110110101010, 0b111100010011101,
               0b110011000101111, 0b110001100011000, 0b110110001000001, 0b110100101110110],
        .medium: [0b101010000010010, 0b101000100100101, 0b101111001111100, 0b101101101001011,
                  0b100010111111001, 0b100000011001110, 0b100111110010111, 0b100101010100000],
        .quartile: [0b011010101011111, 0b011000001101000, 0b011111100110001, 0b011101000000110,
                    0b010010010110100, 0b010000110000011, 0b010111011011010, 0b010101111101101],
        .high: [0b001011010001001, 0b001001110111110, 0b001110011100111, 0b001100111010000,
                0b000011101100010, 0b000001001010101, 0b000110100001100, 0b000100000111011],
    ]

    @Test(arguments: ErrorCorrectionLevel.allCases)
    func formatBitsMatchTheStandardsTable(correction: ErrorCorrectionLevel) {
        for mask in Mask.all {
            #expect(FormatInformation.bits(correction: correction, mask: mask) == Self.table[correction]![mask.reference], "\(mask)")
        }
    }

    /// Version information (annex D, table D.1).
    @Test func versionBitsMatchTheStandard() {
        #expect(FormatInformation.versionBits(version: 7) == 0x07C94)
        #expect(FormatInformation.versionBits(version: 8) == 0x085BC)
        #expect(FormatInformation.versionBits(version: 21) == 0x15683)
        #expect(FormatInformation.versionBits(version: 40) == 0x28C69)
    }

    /// Both copies of the format information in a finished symbol read back as the level and mask used.
    @Test func symbolsCarryTheirFormatInformationTwice() throws {
        for correction in ErrorCorrectionLevel.allCases {
            for mask in Mask.all {
                let code = try QRCode(encoding: "format", correction: correction, mask: mask)
                let n = code.size
                func bit(_ x: Int, _ y: Int, _ i: Int) -> Int { code.isDark(x: x, y: y) ? 1 << i : 0 }
                var first = 0, second = 0
                for i in 0...5 { first |= bit(8, i, i) }
                first |= bit(8, 7, 6) | bit(8, 8, 7) | bit(7, 8, 8)
                for i in 9..<15 { first |= bit(14 - i, 8, i) }
                for i in 0..<8 { second |= bit(n - 1 - i, 8, i) }
                for i in 8..<15 { second |= bit(8, n - 15 + i, i) }
                #expect(first == Self.table[correction]![mask.reference])
                #expect(second == first)
                #expect(code.isDark(x: 8, y: n - 8), "the dark module")
            }
        }
    }
}
