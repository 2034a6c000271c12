import Foundation
import Testing
@testable import QRCode

@Suite(.timeLimit(.minutes(5))) struct PNGWriterTests {
    @Test func checksumsMatchKnownValues() {
        #expect(CRC32.checksum(Array("IEND".utf8)) == 0xAE42_6082)
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(Adler32.checksum([]) == 1)
        #expect(Adler32.checksum(Array("Wikipedia".utf8)) == 0x11E6_0398)
        // Long input: the sums are reduced before they overflow.
        let long = [UInt8](repeating: 0xFF, count: 100_000)
        var reference: (a: UInt64, b: UInt64) = (1, 0)
        for byte in long { reference.a = (reference.a + UInt64(byte)) % 65521; reference.b = (reference.b + reference.a) % 65521 }
        #expect(Adler32.checksum(long) == UInt32(reference.b << 16 | reference.a))
    }

    /// Signature, then IHDR with the image's size, bit depth 1 and colour type 0, then IDAT, then
    /// IEND, each chunk with a valid CRC; the pixels inflate back to the code's modules.
    @Test(arguments: [PNGWriter.Compression.none, .simple])
    func pngParsesAndHoldsTheModules(compression: PNGWriter.Compression) throws {
        let code = try QRCode(encoding: "https://example.com/png", correction: .quartile)
        let scale = 3, quietZone = 4
        let png = [UInt8](code.png(scale: scale, quietZone: quietZone, compression: compression))
        let chunks = try PNGFile.chunks(png)
        #expect(chunks.map(\.type) == ["IHDR", "IDAT", "IEND"])
        let side = (code.size + 2 * quietZone) * scale
        let header = chunks[0].data
        #expect(PNGFile.uint32(header, at: 0) == UInt32(side) && PNGFile.uint32(header, at: 4) == UInt32(side))
        #expect(Array(header[8...]) == [1, 0, 0, 0, 0])

        let zlib = chunks[1].data
        #expect(zlib[0] == 0x78 && (Int(zlib[0]) * 256 + Int(zlib[1])) % 31 == 0)
        let scanlines = try Inflate.zlib(zlib)
        let rowBytes = (side + 7) / 8
        #expect(scanlines.count == (rowBytes + 1) * side)
        for y in 0..<side {
            #expect(scanlines[y * (rowBytes + 1)] == 0, "filter type none")
            for x in 0..<side {
                let white = scanlines[y * (rowBytes + 1) + 1 + x / 8] & (0x80 >> UInt8(x % 8)) != 0
                #expect(white == !code.isDark(x: x / scale - quietZone, y: y / scale - quietZone))
            }
        }
    }

    @Test func simpleCompressionIsMuchSmallerThanStored() throws {
        let code = try QRCode(encoding: [UInt8](repeating: 0x5A, count: 1000), correction: .low)
        let stored = code.png(scale: 8, quietZone: 4, compression: .none)
        let simple = code.png(scale: 8, quietZone: 4, compression: .simple)
        #expect(simple.count * 4 < stored.count, "\(simple.count) vs \(stored.count) bytes")
    }

    /// Long inputs span several stored blocks of at most 65,535 bytes, and still inflate.
    @Test func storedBlocksSplitLongInputs() throws {
        let bytes = (0..<150_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        #expect(try Inflate.zlib(ZlibStream.compress(bytes, method: .stored)) == bytes)
        #expect(try Inflate.zlib(ZlibStream.compress(bytes, method: .fixedHuffman(stride: 1000))) == bytes)
        #expect(try Inflate.zlib(ZlibStream.compress([], method: .stored)) == [])
    }
}

/// Just enough PNG reading to check what PNGWriter writes.
enum PNGFile {
    struct Malformed: Error, CustomStringConvertible { var description: String }

    static func uint32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    static func chunks(_ file: [UInt8]) throws -> [(type: String, data: [UInt8])] {
        guard Array(file.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] else { throw Malformed(description: "signature") }
        var result: [(String, [UInt8])] = []
        var offset = 8
        while offset < file.count {
            let length = Int(uint32(file, at: offset))
            let typeAndData = Array(file[(offset + 4)..<(offset + 8 + length)])
            guard uint32(file, at: offset + 8 + length) == CRC32.checksum(typeAndData) else { throw Malformed(description: "CRC") }
            result.append((String(decoding: typeAndData.prefix(4), as: UTF8.self), Array(typeAndData.dropFirst(4))))
            offset += 12 + length
        }
        return result
    }
}

/// A minimal inflater (RFC 1950/1951) for stored and fixed-Huffman blocks: the two kinds
/// ZlibStream writes. It is written from the RFC independently of the writer, so that the tests
/// check the writer against the format rather than against itself.
enum Inflate {
    struct Malformed: Error {}

    struct BitReader {
        let bytes: [UInt8]
        var position = 0  // in bits
        mutating func bits(_ count: Int) throws -> Int {
            var value = 0
            for i in 0..<count {
                guard position / 8 < bytes.count else { throw Malformed() }
                value |= Int((bytes[position / 8] >> UInt8(position % 8)) & 1) << i
                position += 1
            }
            return value
        }
        /// Huffman codes arrive most significant bit first.
        mutating func code(_ current: Int, extraBits: Int) throws -> Int {
            var value = current
            for _ in 0..<extraBits { value = value << 1 | (try bits(1)) }
            return value
        }
    }

    static func zlib(_ stream: [UInt8]) throws -> [UInt8] {
        guard stream.count >= 6, stream[0] & 0x0F == 8, (Int(stream[0]) * 256 + Int(stream[1])) % 31 == 0 else { throw Malformed() }
        let output = try deflate(Array(stream[2..<(stream.count - 4)]))
        guard PNGFile.uint32(Array(stream.suffix(4)), at: 0) == Adler32.checksum(output) else { throw Malformed() }
        return output
    }

    static func deflate(_ data: [UInt8]) throws -> [UInt8] {
        let lengthBases = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
        let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
        let distanceBases = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073,
                             4097, 6145, 8193, 12289, 16385, 24577]
        let distanceExtra = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]
        var reader = BitReader(bytes: data)
        var output: [UInt8] = []
        var isFinal = false
        while !isFinal {
            isFinal = try reader.bits(1) == 1
            switch try reader.bits(2) {
            case 0:
                reader.position = (reader.position + 7) / 8 * 8
                let length = try reader.bits(16), complement = try reader.bits(16)
                guard length == ~complement & 0xFFFF else { throw Malformed() }
                for _ in 0..<length { output.append(UInt8(try reader.bits(8))) }
            case 1:
                while true {
                    // Fixed codes: 7 bits 0–23 → 256–279; 8 bits 48–191 → 0–143, 192–199 → 280–287; 9 bits 400–511 → 144–255.
                    var code = try reader.code(0, extraBits: 7)
                    let symbol: Int
                    if code <= 23 {
                        symbol = 256 + code
                    } else {
                        code = try reader.code(code, extraBits: 1)
                        if (48...191).contains(code) { symbol = code - 48 }
                        else if (192...199).contains(code) { symbol = 280 + code - 192 }
                        else { symbol = 144 + (try reader.code(code, extraBits: 1)) - 400 }
                    }
                    if symbol < 256 { output.append(UInt8(symbol)); continue }
                    if symbol == 256 { break }
                    guard symbol - 257 < lengthBases.count else { throw Malformed() }
                    let length = lengthBases[symbol - 257] + (try reader.bits(lengthExtra[symbol - 257]))
                    let distanceCode = try reader.code(0, extraBits: 5)
                    guard distanceCode < distanceBases.count else { throw Malformed() }
                    let distance = distanceBases[distanceCode] + (try reader.bits(distanceExtra[distanceCode]))
                    guard distance <= output.count else { throw Malformed() }
                    for _ in 0..<length { output.append(output[output.count - distance]) }
                }
            default:
                throw Malformed()
            }
        }
        return output
    }
}
