import PropertyBased
import Testing
@testable import QRCode

@Suite(.timeLimit(.minutes(5))) struct ReedSolomonTests {
    /// ISO/IEC 18004 annex I: "01234567" as 1-M; its 16 data codewords and 10 error correction codewords.
    @Test func errorCorrectionMatchesTheStandardsWorkedExample() {
        let data: [UInt8] = [0b0001_0000, 0b0010_0000, 0b0000_1100, 0b0101_0110, 0b0110_0001, 0b1000_0000,
                             0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11]
        #expect(ReedSolomon(degree: 10).errorCorrection(for: data)
                == [0b1010_0101, 0b0010_0100, 0b1101_0100, 0b1100_0001, 0b1110_1101, 0b0011_0110, 0b1100_0111, 0b1000_0111,
                    0b0010_1100, 0b0101_0101])
    }

    /// The well-known "HELLO WORLD" 1-M example (alphanumeric mode data codewords).
    @Test func errorCorrectionMatchesHelloWorld() {
        let data: [UInt8] = [32, 91, 11, 120, 209, 114, 220, 77, 67, 64, 236, 17, 236, 17, 236, 17]
        #expect(ReedSolomon(degree: 10).errorCorrection(for: data) == [196, 35, 39, 119, 235, 215, 231, 226, 93, 23])
    }

    @Test func generatorOfDegreeTwoIsXMinusOneTimesXMinusAlpha() {
        // (x − 1)(x − 2) = x² + 3x + 2 in GF(256).
        #expect(ReedSolomon(degree: 2).generator == [3, 2])
    }

    @Test func fieldTablesInvertEachOtherAndMultiplicationDistributes() {
        for x in 1...255 { #expect(GaloisField.exponent[GaloisField.logarithm[x]] == UInt8(x)) }
        #expect(GaloisField.power(8) == 0x1D)  // α⁸ = x⁴ + x³ + x² + 1
        #expect(GaloisField.multiply(0x53, 0xCA) == GaloisField.multiply(0xCA, 0x53))
        for a in [UInt8(0), 1, 2, 0x53, 0xFF] {
            for b in [UInt8(0), 3, 0x80, 0xCA] {
                for c in [UInt8(7), 0x11, 0xFE] {
                    #expect(GaloisField.multiply(a, b ^ c) == GaloisField.multiply(a, b) ^ GaloisField.multiply(a, c))
                }
            }
        }
    }

    static let degrees = Gen<Int>.int(in: 7...30)
    static let blocks = Gen<UInt8>.uint8().array(of: 1...120)

    /// Data followed by its error correction is a codeword: every syndrome is zero.
    @Test func everyEncodedBlockHasZeroSyndromes() async {
        await propertyCheck(count: 200, input: Self.degrees, Self.blocks) { degree, data in
            let code = ReedSolomon(degree: degree)
            let block = data + code.errorCorrection(for: data)
            #expect(code.syndromes(of: block).allSatisfy { $0 == 0 })
        }
    }

    /// Changing any one codeword is detected: some syndrome becomes non-zero.
    @Test func aSingleCorruptedCodewordIsDetected() async {
        await propertyCheck(count: 200, input: Self.degrees, Self.blocks, Gen<Int>.int(in: 0...1000), Gen<UInt8>.uint8(in: 1...255)) {
            degree, data, position, change in
            let code = ReedSolomon(degree: degree)
            var block = data + code.errorCorrection(for: data)
            block[position % block.count] ^= change
            #expect(code.syndromes(of: block).contains { $0 != 0 })
        }
    }

    /// The code is linear: the error correction of a XOR b is the XOR of theirs.
    @Test func errorCorrectionIsLinear() async {
        await propertyCheck(count: 200, input: Self.degrees, Self.blocks, Gen<UInt8>.uint8().array(of: 120)) { degree, a, other in
            let b = Array(other.prefix(a.count))
            let code = ReedSolomon(degree: degree)
            let sum = zip(a, b).map { $0 ^ $1 }
            #expect(code.errorCorrection(for: sum) == zip(code.errorCorrection(for: a), code.errorCorrection(for: b)).map { $0 ^ $1 })
        }
    }
}
