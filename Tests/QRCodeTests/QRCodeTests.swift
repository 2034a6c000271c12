import Foundation
import Testing
@testable import QRCode

@Suite(.timeLimit(.minutes(5))) struct QRCodeTests {
    @Test func theSmallestVersionThatFitsIsChosen() throws {
        #expect(try QRCode(encoding: [UInt8](repeating: 7, count: 17), correction: .low).version == 1)
        #expect(try QRCode(encoding: [UInt8](repeating: 7, count: 18), correction: .low).version == 2)
        #expect(try QRCode(encoding: [UInt8](repeating: 7, count: 7), correction: .high).version == 1)
        #expect(try QRCode(encoding: [UInt8](repeating: 7, count: 8), correction: .high).version == 2)
        #expect(try QRCode(encoding: [UInt8](repeating: 7, count: 2953), correction: .low).version == 40)
        #expect(try QRCode(encoding: [UInt8]()).version == 1)
    }

    @Test func aMinimumVersionIsHonouredAndExceededWhenNeeded() throws {
        let code = try QRCode(encoding: "hi", correction: .medium, minimumVersion: 10)
        #expect(code.version == 10)
        #expect(code.size == 57)
        #expect(try QRCode(encoding: [UInt8](repeating: 1, count: 100), minimumVersion: 2).version == 6)  // 5-M holds 84, 6-M 106
        #expect(throws: QRCodeError.versionOutOfRange(0)) { try QRCode(encoding: "x", minimumVersion: 0) }
        #expect(throws: QRCodeError.versionOutOfRange(41)) { try QRCode(encoding: "x", minimumVersion: 41) }
    }

    @Test func dataTooLongNamesTheLimit() throws {
        let error = #expect(throws: QRCodeError.self) { try QRCode(encoding: [UInt8](repeating: 0, count: 1274), correction: .high) }
        #expect(error == .dataTooLong(byteCount: 1274, maximum: 1273, correction: .high))
        #expect(error?.description == "1,274 bytes do not fit at ECC H: the most is 1,273 (2,953 at ECC L)")
        #expect(throws: QRCodeError.dataTooLong(byteCount: 2954, maximum: 2953, correction: .low)) {
            try QRCode(encoding: [UInt8](repeating: 0, count: 2954), correction: .low)
        }
        #expect(QRCodeError.dataTooLong(byteCount: 5000, maximum: 2953, correction: .low).description
                == "5,000 bytes do not fit at ECC L: the most is 2,953")
    }

    @Test func levelsAreReadFromLettersOrNames() {
        #expect(ErrorCorrectionLevel(spelling: "h") == .high)
        #expect(ErrorCorrectionLevel(spelling: "Quartile") == .quartile)
        #expect(ErrorCorrectionLevel(spelling: "X") == nil)
        #expect(ErrorCorrectionLevel.acceptedSpellings == "L, M, Q, H (or low, medium, quartile, high)")
        #expect(Mask(reference: 8) == nil)
        #expect(Mask(reference: 3)?.reference == 3)
    }

    /// Byte mode data codewords for "Hi" at 1-H: 0100, count 00000010, 'H' 'i', terminator 0000,
    /// then pad codewords 0xEC 0x11 alternately up to the 9 data codewords.
    @Test func dataCodewordsFollowTheBitStreamLayout() {
        #expect(QRCode.dataCodewords(for: Array("Hi".utf8), version: 1, correction: .high)
                == [0x40, 0x24, 0x86, 0x90, 0xEC, 0x11, 0xEC, 0x11, 0xEC])
        // Full capacity leaves no room for the terminator beyond the last 4 bits.
        let full = QRCode.dataCodewords(for: [UInt8](repeating: 0xFF, count: 17), version: 1, correction: .low)
        #expect(full.count == 19)
        #expect(full.last == 0xF0)
    }

    /// Interleaving (section 7.6): with blocks of 15, 15, 16, 16 data codewords (5-Q), the 16th data
    /// codeword of the long blocks comes after all the 15th, and error correction follows the data.
    @Test func codewordsAreInterleavedAcrossBlocks() {
        let bytes = [UInt8](repeating: 0, count: 59)
        let data = QRCode.dataCodewords(for: bytes, version: 5, correction: .quartile)
        let all = QRCode.codewords(for: bytes, version: 5, correction: .quartile)
        #expect(all.count == 134)
        #expect(Array(all[0..<4]) == [data[0], data[15], data[30], data[46]])
        #expect(Array(all[60..<62]) == [data[45], data[61]])
        let ecc = ReedSolomon(degree: 18).errorCorrection(for: data[0..<15])
        #expect(all[62] == ecc[0] && all[66] == ecc[1])
    }

    /// Finder patterns in three corners, timing patterns between them, and light separators.
    @Test func functionPatternsAreWhereTheStandardPutsThem() throws {
        let code = try QRCode(encoding: "function patterns", correction: .quartile, minimumVersion: 7)
        let n = code.size
        for (left, top) in [(0, 0), (n - 7, 0), (0, n - 7)] {
            for dy in 0..<7 {
                for dx in 0..<7 {
                    let ring = max(abs(dx - 3), abs(dy - 3))
                    #expect(code.isDark(x: left + dx, y: top + dy) == (ring != 2), "finder at (\(left), \(top))")
                }
            }
        }
        for i in 7..<(n - 7) {
            #expect(code.isDark(x: i, y: 6) == (i % 2 == 0))
            #expect(code.isDark(x: 6, y: i) == (i % 2 == 0))
        }
        for i in 0..<8 {
            #expect(!code.isDark(x: 7, y: i) && !code.isDark(x: i, y: 7), "top-left separator")
        }
        // An alignment pattern centred at (22, 22) in version 7.
        #expect(code.isDark(x: 22, y: 22) && !code.isDark(x: 21, y: 22) && code.isDark(x: 20, y: 22))
        // Version information, bottom-left block: bit i at (i / 3, n − 11 + i % 3).
        let bits = FormatInformation.versionBits(version: 7)
        for i in 0..<18 { #expect(code.isDark(x: i / 3, y: n - 11 + i % 3) == ((bits >> i) & 1 == 1)) }
        #expect(!code.isDark(x: -1, y: 0) && !code.isDark(x: 0, y: n), "outside the symbol is light")
        #expect(code.modules.count == n && code.modules.allSatisfy { $0.count == n })
    }

    /// The mask chosen is one of those with the lowest penalty; forcing a mask uses it.
    @Test func theChosenMaskHasTheLowestPenalty() throws {
        for text in ["https://example.com/a", String(repeating: "z", count: 300)] {
            let chosen = try QRCode(encoding: text, correction: .medium)
            let scores = try Mask.all.map { mask -> Int in
                let code = try QRCode(encoding: text, correction: .medium, mask: mask)
                return Penalty.score(code.modules.flatMap { $0 }, size: code.size)
            }
            #expect(scores[chosen.mask.reference] == scores.min())
        }
    }

    /// Penalty rules on small grids where each score can be counted by hand.
    @Test func penaltyRulesScoreAsTheStandardDescribes() {
        // All light 5 × 5: 10 runs of 5 (3 each), 16 2×2 blocks (3 each), 100 % light (10 × 10).
        #expect(Penalty.score(Array(repeating: false, count: 25), size: 5) == 30 + 48 + 100)
        // Checkerboard 6 × 6: no runs, no blocks, exactly half dark.
        let checkerboard = (0..<36).map { ($0 / 6 + $0 % 6) % 2 == 0 }
        #expect(Penalty.score(checkerboard, size: 6) == 0)
        // One row 1011101 then light: the finder-like pattern in that row, with light around it.
        var grid = Array(repeating: false, count: 11 * 11)
        for (x, dark) in [true, false, true, true, true, false, true].enumerated() { grid[5 * 11 + 2 + x] = dark }
        let withPattern = Penalty.score(grid, size: 11)
        grid[5 * 11 + 3] = true  // 1111101: no longer finder-like
        // Lost: the pattern, seen with light on its left and on its right (2 × 40). Gained: row 5's
        // run of five dark (3). Column 3's light run of 11 (3 + 6) becomes two runs of 5 (3 + 3).
        // 2 × 2 blocks and the balance step (5 or 6 dark of 121: 9 steps) are unchanged.
        #expect(withPattern - Penalty.score(grid, size: 11) == 2 * 40 - 3 + (9 - 6))
    }

    /// A version 40 code is made in well under a second; mask selection is linear in the area.
    @Test func version40IsFast() throws {
        let bytes = (0..<2953).map { UInt8($0 % 251) }
        let started = Date()
        let code = try QRCode(encoding: bytes, correction: .low)
        let elapsed = Date().timeIntervalSince(started)
        print("version 40-L with mask selection: \(String(format: "%.0f", elapsed * 1000)) ms")
        #expect(code.version == 40)
        #expect(elapsed < 5, "took \(elapsed) s")
    }
}
