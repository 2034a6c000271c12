import PropertyBased
import Testing
@testable import QRCode

@Suite(.timeLimit(.minutes(5))) struct BitBufferTests {
    @Test func bitsArePackedMostSignificantFirst() {
        var bits = BitBuffer()
        bits.append(0b0100, bitCount: 4)
        bits.append(0b0000_1011, bitCount: 8)
        bits.appendBit(true)
        #expect(bits.count == 13)
        #expect(bits.bytes == [0b0100_0000, 0b1011_1000])
    }

    /// Appending fields and reading them back at their offsets gives the same fields.
    @Test func readingBackGivesWhatWasAppended() async {
        // A width of 0 to 24 bits and a value that fits in it.
        let field = zip(Gen<Int>.int(in: 0...24), Gen<Int>.int(in: 0...0xFF_FFFF)).map { width, value in (width, value & ((1 << width) - 1)) }
        await propertyCheck(count: 300, input: field.array(of: 0...40)) { fields in
            var bits = BitBuffer()
            for (width, value) in fields { bits.append(value, bitCount: width) }
            #expect(bits.count == fields.reduce(0) { $0 + $1.0 })
            #expect(bits.bytes.count == (bits.count + 7) / 8)
            var offset = 0
            for (width, value) in fields {
                #expect(bits.value(at: offset, bitCount: width) == value)
                offset += width
            }
            if bits.count % 8 != 0 { #expect(bits.bytes.last! & (0xFF >> UInt8(bits.count % 8)) == 0) }  // padding bits are 0
        }
    }
}
