/// The sizes, capacities and block structures of QR code versions 1 to 40 (ISO/IEC 18004,
/// tables 1, 7 and 9, and annex E).
///
/// A version-v symbol is 17 + 4v modules wide. Its codewords are split into blocks; each block
/// gets the same number of error correction codewords, and the data codewords are shared out so
/// that the later blocks ("long" blocks) hold one more than the earlier ("short") ones.
enum VersionTable {
    /// Every version there is.
    static let versions = 1...40

    /// The width and height of a version's symbol, in modules: 21 for version 1 up to 177 for 40.
    static func size(of version: Int) -> Int { 17 + 4 * version }

    /// Error correction codewords per block, by level (L, M, Q, H) and version (index 0 unused).
    static let errorCorrectionCodewordsPerBlock: [[Int]] = [
        //0  1   2   3   4   5   6   7   8   9  10  11  12  13  14  15  16  17  18  19  20  21  22  23  24  25  26  27  28  29  30  31  32  33  34  35  36  37  38  39  40
        [0,  7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28, 28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],  // L
        [0, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26, 26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28],  // M
        [0, 13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30, 28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],  // Q
        [0, 17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28, 30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],  // H
    ]

    /// Error correction blocks, by level (L, M, Q, H) and version (index 0 unused).
    static let blockCounts: [[Int]] = [
        //0  1  2  3  4  5  6  7  8  9 10  11  12  13  14  15  16  17  18  19  20  21  22  23  24  25  26  27  28  29  30  31  32  33  34  35  36  37  38  39  40
        [0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 4,  4,  4,  4,  4,  6,  6,  6,  6,  7,  8,  8,  9,  9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25],  // L
        [0, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5,  5,  8,  9,  9, 10, 10, 11, 13, 14, 16, 17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49],  // M
        [0, 1, 1, 2, 2, 4, 4, 6, 6, 8, 8,  8, 10, 12, 16, 12, 17, 16, 18, 21, 20, 23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68],  // Q
        [0, 1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25, 25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81],  // H
    ]

    /// The centres of the alignment patterns along each axis (annex E): empty for version 1,
    /// otherwise 6, then evenly spaced (by an even step) up to size − 7.
    static func alignmentPatternCentres(version: Int) -> [Int] {
        if version == 1 { return [] }
        let count = version / 7 + 2
        let step = version == 32 ? 26 : (version * 4 + count * 2 + 1) / (count * 2 - 2) * 2
        var centres = [6]
        var position = size(of: version) - 7
        var rest: [Int] = []
        while rest.count < count - 1 {
            rest.insert(position, at: 0)
            position -= step
        }
        centres += rest
        return centres
    }

    /// Modules left for codewords (data and error correction, plus remainder bits) once the
    /// finder, timing and alignment patterns and the format and version information are drawn.
    static func dataModuleCount(version: Int) -> Int {
        var count = (16 * version + 128) * version + 64
        if version >= 2 {
            let alignment = version / 7 + 2
            count -= (25 * alignment - 10) * alignment - 55
            if version >= 7 { count -= 36 }
        }
        return count
    }

    /// All codewords in a version's symbol: data and error correction (table 1).
    static func totalCodewords(version: Int) -> Int { dataModuleCount(version: version) / 8 }

    /// The codewords left for data once error correction is taken at this level (table 7).
    static func dataCodewords(version: Int, correction: ErrorCorrectionLevel) -> Int {
        totalCodewords(version: version) - blockStructure(version: version, correction: correction).errorCorrectionCodewords
    }

    /// Bits of the byte mode character count indicator: 8 for versions 1–9, 16 for 10–40 (table 3).
    static func characterCountBits(version: Int) -> Int { version <= 9 ? 8 : 16 }

    /// The most bytes a version holds in byte mode at a level: the data bits less the 4-bit mode
    /// indicator and the character count, in whole bytes.
    static func byteCapacity(version: Int, correction: ErrorCorrectionLevel) -> Int {
        let bits = dataCodewords(version: version, correction: correction) * 8 - 4 - characterCountBits(version: version)
        let byLength = bits / 8
        let byCounter = (1 << characterCountBits(version: version)) - 1
        return min(byLength, byCounter)
    }

    /// How a version's codewords are divided into blocks at a level (table 9).
    static func blockStructure(version: Int, correction: ErrorCorrectionLevel) -> BlockStructure {
        let level = correction.tableIndex
        let blocks = blockCounts[level][version]
        let perBlock = errorCorrectionCodewordsPerBlock[level][version]
        let total = totalCodewords(version: version)
        let shortBlockLength = total / blocks
        let longBlocks = total % blocks
        return BlockStructure(shortBlocks: blocks - longBlocks, longBlocks: longBlocks,
                              shortBlockDataCodewords: shortBlockLength - perBlock,
                              errorCorrectionCodewordsPerBlock: perBlock)
    }
}

/// How a symbol's codewords are divided into error correction blocks.
///
/// The standard writes it as e.g. "2 × (33, 15) + 2 × (34, 16)" for 5-Q: two short blocks of 33
/// codewords (15 of them data) and two long blocks of 34 codewords (16 data).
struct BlockStructure: Equatable, Sendable {
    var shortBlocks: Int
    var longBlocks: Int
    /// Data codewords in a short block; a long block holds one more.
    var shortBlockDataCodewords: Int
    var errorCorrectionCodewordsPerBlock: Int

    var blockCount: Int { shortBlocks + longBlocks }
    var dataCodewords: Int { blockCount * shortBlockDataCodewords + longBlocks }
    var errorCorrectionCodewords: Int { blockCount * errorCorrectionCodewordsPerBlock }

    /// The data codewords in block `index` (short blocks first).
    func dataCodewords(inBlock index: Int) -> Int {
        index < shortBlocks ? shortBlockDataCodewords : shortBlockDataCodewords + 1
    }
}
