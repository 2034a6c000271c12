import Testing
@testable import QRCode

@Suite(.timeLimit(.minutes(5))) struct VersionTableTests {
    /// Byte mode capacities from ISO/IEC 18004 table 7.
    @Test(arguments: [
        (1, ErrorCorrectionLevel.low, 17), (1, .medium, 14), (1, .quartile, 11), (1, .high, 7),
        (2, .low, 32), (2, .medium, 26), (2, .quartile, 20), (2, .high, 14),
        (7, .medium, 122), (9, .low, 230), (10, .low, 271), (10, .medium, 213), (10, .quartile, 151), (10, .high, 119),
        (20, .high, 382), (40, .low, 2953), (40, .medium, 2331), (40, .quartile, 1663), (40, .high, 1273),
    ])
    func byteCapacityMatchesTheStandard(version: Int, correction: ErrorCorrectionLevel, bytes: Int) {
        #expect(QRCode.capacity(version: version, correction: correction) == bytes)
    }

    /// Total codewords per version (table 1).
    @Test func totalCodewordsMatchTheStandard() {
        let expected = [1: 26, 2: 44, 6: 172, 7: 196, 10: 346, 14: 581, 21: 1156, 40: 3706]
        for (version, total) in expected { #expect(VersionTable.totalCodewords(version: version) == total, "version \(version)") }
    }

    /// Block structures written as the standard writes them (table 9).
    @Test func blockStructuresMatchTheStandard() {
        #expect(VersionTable.blockStructure(version: 1, correction: .high)
                == BlockStructure(shortBlocks: 1, longBlocks: 0, shortBlockDataCodewords: 9, errorCorrectionCodewordsPerBlock: 17))
        // 5-Q: 2 × (33, 15) + 2 × (34, 16)
        #expect(VersionTable.blockStructure(version: 5, correction: .quartile)
                == BlockStructure(shortBlocks: 2, longBlocks: 2, shortBlockDataCodewords: 15, errorCorrectionCodewordsPerBlock: 18))
        // 14-M: 4 × (64, 40) + 5 × (65, 41)
        #expect(VersionTable.blockStructure(version: 14, correction: .medium)
                == BlockStructure(shortBlocks: 4, longBlocks: 5, shortBlockDataCodewords: 40, errorCorrectionCodewordsPerBlock: 24))
        // 40-L: 19 × (148, 118) + 6 × (149, 119); 40-H: 20 × (45, 15) + 61 × (46, 16)
        #expect(VersionTable.blockStructure(version: 40, correction: .low)
                == BlockStructure(shortBlocks: 19, longBlocks: 6, shortBlockDataCodewords: 118, errorCorrectionCodewordsPerBlock: 30))
        #expect(VersionTable.blockStructure(version: 40, correction: .high)
                == BlockStructure(shortBlocks: 20, longBlocks: 61, shortBlockDataCodewords: 15, errorCorrectionCodewordsPerBlock: 30))
        #expect(VersionTable.dataCodewords(version: 40, correction: .low) == 2956)
    }

    /// For every version and level: the blocks add up to the symbol's codewords, and capacity
    /// grows with the version and shrinks with the level.
    @Test func everyVersionAndLevelIsConsistent() {
        for version in 1...40 {
            for correction in ErrorCorrectionLevel.allCases {
                let structure = VersionTable.blockStructure(version: version, correction: correction)
                #expect(structure.dataCodewords + structure.errorCorrectionCodewords == VersionTable.totalCodewords(version: version))
                #expect(structure.shortBlocks >= 1 && structure.shortBlockDataCodewords >= 1)
                if version > 1 {
                    #expect(QRCode.capacity(version: version, correction: correction) > QRCode.capacity(version: version - 1, correction: correction))
                }
            }
            let capacities = ErrorCorrectionLevel.allCases.map { QRCode.capacity(version: version, correction: $0) }
            #expect(capacities == capacities.sorted(by: >), "version \(version): L > M > Q > H")
        }
    }

    /// The modules the layout leaves for codewords are exactly those the formula counts.
    @Test func dataModuleCountMatchesTheLaidOutSymbol() {
        for version in 1...40 {
            let builder = MatrixBuilder(version: version)
            #expect(builder.isFunction.filter { !$0 }.count == VersionTable.dataModuleCount(version: version), "version \(version)")
        }
    }

    /// Alignment pattern centres (annex E, table E.1).
    @Test func alignmentPatternCentresMatchTheStandard() {
        let expected: [Int: [Int]] = [
            1: [], 2: [6, 18], 6: [6, 34], 7: [6, 22, 38], 14: [6, 26, 46, 66], 22: [6, 26, 50, 74, 98],
            32: [6, 34, 60, 86, 112, 138], 36: [6, 24, 50, 76, 102, 128, 154], 39: [6, 26, 54, 82, 110, 138, 166],
            40: [6, 30, 58, 86, 114, 142, 170],
        ]
        for (version, centres) in expected {
            #expect(VersionTable.alignmentPatternCentres(version: version) == centres, "version \(version)")
        }
    }
}
