/// A zlib stream (RFC 1950) around DEFLATE data (RFC 1951), written with no compression library:
/// either stored (uncompressed) blocks, or one block with the fixed Huffman codes and matches
/// found by a deliberately simple search.
///
/// The simple search looks for repeats at only two distances: 1 (runs of one byte) and a given
/// `stride` (the same bytes one image row earlier). That is nearly all the redundancy a QR code
/// image has, where each module row is repeated `scale` times and modules are runs of pixels.
enum ZlibStream {
    enum Method: Sendable {
        /// Stored blocks of up to 65,535 bytes each: no compression, trivially correct.
        case stored
        /// One fixed-Huffman block with run and previous-row matches.
        case fixedHuffman(stride: Int)
    }

    /// `bytes`, wrapped as a zlib stream.
    static func compress(_ bytes: [UInt8], method: Method) -> [UInt8] {
        // CMF 0x78: deflate with a 32 KB window; FLG 0x01 makes CMF·256 + FLG a multiple of 31.
        var output: [UInt8] = [0x78, 0x01]
        switch method {
        case .stored: output += storedBlocks(bytes)
        case .fixedHuffman(let stride): output += fixedHuffmanBlock(bytes, stride: stride)
        }
        let adler = Adler32.checksum(bytes)
        output += [UInt8(adler >> 24), UInt8(adler >> 16 & 0xFF), UInt8(adler >> 8 & 0xFF), UInt8(adler & 0xFF)]
        return output
    }

    /// Stored blocks: each is a header byte (BFINAL, BTYPE 00), LEN and its complement NLEN
    /// (little-endian), then LEN bytes as they are.
    static func storedBlocks(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        var start = 0
        repeat {
            let length = min(65535, bytes.count - start)
            let isFinal = start + length == bytes.count
            output.append(isFinal ? 1 : 0)
            let len = UInt16(length), nlen = ~UInt16(length)
            output += [UInt8(len & 0xFF), UInt8(len >> 8), UInt8(nlen & 0xFF), UInt8(nlen >> 8)]
            output += bytes[start..<(start + length)]
            start += length
        } while start < bytes.count
        return output
    }

    // MARK: Fixed Huffman

    private static let lengthBases = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115,
                                      131, 163, 195, 227, 258]
    private static let lengthExtraBits = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    private static let distanceBases = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
                                        2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577]
    private static let distanceExtraBits = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12,
                                            13, 13]
    private static let maximumMatch = 258, minimumMatch = 3, window = 32768

    /// One final block (BTYPE 01) of literals and matches, ended by symbol 256.
    static func fixedHuffmanBlock(_ bytes: [UInt8], stride: Int) -> [UInt8] {
        var writer = DeflateBitWriter()
        writer.write(1, bitCount: 1)  // BFINAL
        writer.write(1, bitCount: 2)  // BTYPE 01: fixed Huffman codes
        let distances = [stride, 1].filter { $0 >= 1 && $0 <= window }
        var position = 0
        while position < bytes.count {
            var bestLength = 0, bestDistance = 0
            for distance in distances where distance <= position {
                let limit = min(maximumMatch, bytes.count - position)
                var length = 0
                while length < limit && bytes[position + length] == bytes[position + length - distance] { length += 1 }
                if length > bestLength { bestLength = length; bestDistance = distance }
            }
            if bestLength >= minimumMatch {
                writeLength(bestLength, to: &writer)
                writeDistance(bestDistance, to: &writer)
                position += bestLength
            } else {
                writeLiteral(Int(bytes[position]), to: &writer)
                position += 1
            }
        }
        writeLiteral(256, to: &writer)  // end of block
        return writer.finish()
    }

    /// A literal/length symbol 0...287 in its fixed Huffman code (RFC 1951 section 3.2.6).
    private static func writeLiteral(_ symbol: Int, to writer: inout DeflateBitWriter) {
        switch symbol {
        case 0...143: writer.writeHuffman(0x30 + symbol, bitCount: 8)
        case 144...255: writer.writeHuffman(0x190 + symbol - 144, bitCount: 9)
        case 256...279: writer.writeHuffman(symbol - 256, bitCount: 7)
        default: writer.writeHuffman(0xC0 + symbol - 280, bitCount: 8)
        }
    }

    private static func writeLength(_ length: Int, to writer: inout DeflateBitWriter) {
        let code = lengthBases.lastIndex(where: { $0 <= length })!
        writeLiteral(257 + code, to: &writer)
        writer.write(length - lengthBases[code], bitCount: lengthExtraBits[code])
    }

    private static func writeDistance(_ distance: Int, to writer: inout DeflateBitWriter) {
        let code = distanceBases.lastIndex(where: { $0 <= distance })!
        writer.writeHuffman(code, bitCount: 5)
        writer.write(distance - distanceBases[code], bitCount: distanceExtraBits[code])
    }
}

/// Packs DEFLATE's bits: fields least significant bit first, Huffman codes most significant first.
struct DeflateBitWriter {
    private var bytes: [UInt8] = []
    private var buffer = 0, bufferedBits = 0

    /// Writes the low `bitCount` bits of `value`, lowest first.
    mutating func write(_ value: Int, bitCount: Int) {
        buffer |= value << bufferedBits
        bufferedBits += bitCount
        while bufferedBits >= 8 {
            bytes.append(UInt8(buffer & 0xFF))
            buffer >>= 8
            bufferedBits -= 8
        }
    }

    /// Writes a Huffman code of `bitCount` bits, highest first.
    mutating func writeHuffman(_ code: Int, bitCount: Int) {
        var reversed = 0
        for i in 0..<bitCount where code & (1 << i) != 0 { reversed |= 1 << (bitCount - 1 - i) }
        write(reversed, bitCount: bitCount)
    }

    /// The bytes, the last one padded with 0 bits.
    mutating func finish() -> [UInt8] {
        if bufferedBits > 0 { write(0, bitCount: 8 - bufferedBits) }
        return bytes
    }
}
