import Foundation

/// Writes black-and-white images as PNG files (ISO/IEC 15948) with no image library: 1-bit
/// greyscale, the signature, an IHDR chunk, one IDAT chunk holding a ``ZlibStream``, and IEND.
struct PNGWriter {
    enum Compression: Sendable {
        /// Stored deflate blocks: larger files, simplest possible encoding.
        case none
        /// Fixed-Huffman deflate with run and previous-row matches: a few kilobytes for a QR code.
        case simple
    }

    /// The eight bytes every PNG file starts with.
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// A `width` × `height` 1-bit greyscale PNG; `isBlack(x, y)` gives each pixel, from the top-left.
    static func blackAndWhite(width: Int, height: Int, compression: Compression = .simple,
                              isBlack: (_ x: Int, _ y: Int) -> Bool) -> Data {
        precondition(width > 0 && height > 0 && width <= Int(Int32.max) && height <= Int(Int32.max), "a PNG is 1 to 2³¹−1 pixels each way")
        // Scanlines: filter type 0 (none), then the pixels packed eight to a byte, first in the
        // high bit. In greyscale 1 is white, so a black pixel is a 0 bit.
        let rowBytes = (width + 7) / 8
        var scanlines = [UInt8](repeating: 0, count: (rowBytes + 1) * height)
        for y in 0..<height {
            let start = y * (rowBytes + 1) + 1
            for x in 0..<width where !isBlack(x, y) { scanlines[start + x / 8] |= 0x80 >> UInt8(x % 8) }
        }

        var header: [UInt8] = []
        header += bigEndian(UInt32(width))
        header += bigEndian(UInt32(height))
        header += [1, 0, 0, 0, 0]  // bit depth 1, colour type 0 (greyscale), deflate, adaptive filtering, no interlace

        let method: ZlibStream.Method = compression == .none ? .stored : .fixedHuffman(stride: rowBytes + 1)
        var file = signature
        file += chunk("IHDR", header)
        file += chunk("IDAT", ZlibStream.compress(scanlines, method: method))
        file += chunk("IEND", [])
        return Data(file)
    }

    /// A chunk: the data's length, the four-letter type, the data, and the CRC-32 of type and data.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        precondition(typeBytes.count == 4, "chunk types are four ASCII letters")
        return bigEndian(UInt32(data.count)) + typeBytes + data + bigEndian(CRC32.checksum(typeBytes + data))
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}

extension QRCode {
    /// The code as a PNG image: 1-bit greyscale, black modules on white, `scale` pixels per
    /// module, with a light border of `quietZone` modules (4 is what the standard asks for).
    ///
    /// ```swift
    /// try QRCode(encoding: "hello").png(scale: 4).write(to: URL(fileURLWithPath: "hello.png"))
    /// ```
    ///
    /// - Precondition: `scale` ≥ 1 and `quietZone` ≥ 0.
    public func png(scale: Int = 8, quietZone: Int = 4) -> Data {
        png(scale: scale, quietZone: quietZone, compression: .simple)
    }

    func png(scale: Int, quietZone: Int, compression: PNGWriter.Compression) -> Data {
        precondition(scale >= 1, "scale must be at least 1 pixel per module")
        precondition(quietZone >= 0, "the quiet zone cannot be negative")
        let side = (size + 2 * quietZone) * scale
        return PNGWriter.blackAndWhite(width: side, height: side, compression: compression) { x, y in
            isDark(x: x / scale - quietZone, y: y / scale - quietZone)
        }
    }
}
