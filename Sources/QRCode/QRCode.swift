import Foundation

/// A QR code symbol: a square of dark and light modules that encodes bytes, per ISO/IEC 18004.
///
/// Make one from the bytes or text to carry, then draw it:
///
/// ```swift
/// let code = try QRCode(encoding: "https://example.com/logout")   // UTF-8, ECC M
/// let svg: String = code.svg()                  // 8 px modules, 4-module quiet zone
/// let png: Data = code.png(scale: 4)
/// print(code.terminalText())                   // scan it from the screen
/// ```
///
/// The data is encoded in byte mode (any bytes; text is UTF-8). The smallest version (size) that
/// holds the data at the chosen ``ErrorCorrectionLevel`` is picked, from version 1 (21 × 21
/// modules, up to 17 bytes at L) to version 40 (177 × 177, up to 2,953 bytes at L); pass
/// `minimumVersion` to get at least a given size. Of the eight ``Mask`` patterns, the one with the
/// lowest penalty score is used unless one is requested.
///
/// Read modules with ``isDark(x:y:)``: `x` is the column and `y` the row, from the top-left
/// corner, both in `0..<size`. The quiet zone (the light border a reader needs) is not part of
/// the symbol; the renderers add it.
public struct QRCode: Hashable, Sendable {
    /// The version, 1 to 40: the symbol is 17 + 4 × version modules wide.
    public let version: Int

    /// The error correction level the data was encoded at.
    public let correction: ErrorCorrectionLevel

    /// The mask pattern applied to the data modules.
    public let mask: Mask

    /// Modules per side, without the quiet zone: 21 for version 1, up to 177 for version 40.
    public var size: Int { VersionTable.size(of: version) }

    /// Row-major, `size * size`; `true` is dark.
    private let moduleGrid: [Bool]

    /// Encodes `bytes` in byte mode.
    ///
    /// - Parameters:
    ///   - bytes: The data; any byte values.
    ///   - correction: How much damage the code survives; more needs a larger symbol.
    ///   - minimumVersion: The smallest version to use, 1 to 40. A larger one is chosen when the
    ///     data needs it.
    ///   - mask: A mask to use instead of the one with the lowest penalty; normally `nil`.
    /// - Throws: ``QRCodeError/dataTooLong(byteCount:maximum:correction:)`` when even version 40
    ///   cannot hold the data at this level; ``QRCodeError/versionOutOfRange(_:)`` for a
    ///   `minimumVersion` outside 1...40.
    public init(encoding bytes: [UInt8], correction: ErrorCorrectionLevel = .medium, minimumVersion: Int = 1,
                mask: Mask? = nil) throws(QRCodeError) {
        guard VersionTable.versions.contains(minimumVersion) else { throw .versionOutOfRange(minimumVersion) }
        guard let version = (minimumVersion...40).first(where: {
            VersionTable.byteCapacity(version: $0, correction: correction) >= bytes.count
        }) else {
            throw .dataTooLong(byteCount: bytes.count, maximum: Self.capacity(version: 40, correction: correction),
                               correction: correction)
        }
        let codewords = Self.codewords(for: bytes, version: version, correction: correction)

        var builder = MatrixBuilder(version: version)
        builder.placeCodewords(codewords)
        let chosen = mask ?? Self.bestMask(for: builder, correction: correction)
        builder.apply(chosen)
        builder.drawFormatInformation(FormatInformation.bits(correction: correction, mask: chosen))

        self.version = version
        self.correction = correction
        self.mask = chosen
        moduleGrid = builder.modules
    }

    /// Encodes the bytes of `data` in byte mode; the parameters and errors are those of the
    /// `[UInt8]` initializer.
    public init(encoding data: Data, correction: ErrorCorrectionLevel = .medium, minimumVersion: Int = 1,
                mask: Mask? = nil) throws(QRCodeError) {
        try self.init(encoding: [UInt8](data), correction: correction, minimumVersion: minimumVersion, mask: mask)
    }

    /// Encodes `text` as UTF-8 in byte mode, which is how phones' camera apps read it.
    public init(encoding text: String, correction: ErrorCorrectionLevel = .medium, minimumVersion: Int = 1,
                mask: Mask? = nil) throws(QRCodeError) {
        try self.init(encoding: Array(text.utf8), correction: correction, minimumVersion: minimumVersion, mask: mask)
    }

    /// Whether the module in column `x`, row `y` is dark. Both run from 0 (top-left) to `size - 1`;
    /// anything outside the symbol is light, as the quiet zone is.
    public func isDark(x: Int, y: Int) -> Bool {
        guard (0..<size).contains(x), (0..<size).contains(y) else { return false }
        return moduleGrid[y * size + x]
    }

    /// All modules, one array per row from the top, each from the left; `true` is dark.
    public var modules: [[Bool]] {
        (0..<size).map { y in Array(moduleGrid[(y * size)..<((y + 1) * size)]) }
    }

    /// The most bytes a version holds at a level, e.g. 17 for version 1 at L and 1,273 for
    /// version 40 at H.
    public static func capacity(version: Int, correction: ErrorCorrectionLevel) -> Int {
        precondition(VersionTable.versions.contains(version), "QR code versions are 1 to 40")
        return VersionTable.byteCapacity(version: version, correction: correction)
    }

    // MARK: Encoding

    /// The final codeword sequence: the data bit stream cut into blocks, each block's
    /// Reed–Solomon codewords appended, then all interleaved (section 7.6).
    static func codewords(for bytes: [UInt8], version: Int, correction: ErrorCorrectionLevel) -> [UInt8] {
        let data = dataCodewords(for: bytes, version: version, correction: correction)
        let structure = VersionTable.blockStructure(version: version, correction: correction)
        let reedSolomon = ReedSolomon(degree: structure.errorCorrectionCodewordsPerBlock)

        var dataBlocks: [ArraySlice<UInt8>] = []
        var errorCorrectionBlocks: [[UInt8]] = []
        var start = 0
        for index in 0..<structure.blockCount {
            let block = data[start..<(start + structure.dataCodewords(inBlock: index))]
            start = block.endIndex
            dataBlocks.append(block)
            errorCorrectionBlocks.append(reedSolomon.errorCorrection(for: block))
        }

        var result: [UInt8] = []
        result.reserveCapacity(VersionTable.totalCodewords(version: version))
        for i in 0...structure.shortBlockDataCodewords {  // data: i-th codeword of each block in turn
            for block in dataBlocks where i < block.count { result.append(block[block.startIndex + i]) }
        }
        for i in 0..<structure.errorCorrectionCodewordsPerBlock {
            for block in errorCorrectionBlocks { result.append(block[i]) }
        }
        return result
    }

    /// The data codewords: mode indicator 0100 (byte), the character count, the bytes, a
    /// terminator of up to four 0 bits, 0 bits to a byte boundary, then pad codewords 0xEC and
    /// 0x11 alternately until the version's data capacity is full (section 7.4).
    static func dataCodewords(for bytes: [UInt8], version: Int, correction: ErrorCorrectionLevel) -> [UInt8] {
        let capacityBits = VersionTable.dataCodewords(version: version, correction: correction) * 8
        var bits = BitBuffer()
        bits.append(0b0100, bitCount: 4)
        bits.append(bytes.count, bitCount: VersionTable.characterCountBits(version: version))
        for byte in bytes { bits.append(Int(byte), bitCount: 8) }
        precondition(bits.count <= capacityBits, "the version was chosen to fit the data")
        bits.append(0, bitCount: min(4, capacityBits - bits.count))
        bits.append(0, bitCount: (8 - bits.count % 8) % 8)
        var codewords = bits.bytes
        var pad: UInt8 = 0xEC
        while codewords.count * 8 < capacityBits {
            codewords.append(pad)
            pad = pad == 0xEC ? 0x11 : 0xEC
        }
        return codewords
    }

    /// The mask whose finished symbol (format information included) scores the lowest
    /// ``Penalty``; the lowest reference wins a tie.
    private static func bestMask(for builder: MatrixBuilder, correction: ErrorCorrectionLevel) -> Mask {
        var best = Mask.all[0], bestScore = Int.max
        for mask in Mask.all {
            var candidate = builder
            candidate.apply(mask)
            candidate.drawFormatInformation(FormatInformation.bits(correction: correction, mask: mask))
            let score = Penalty.score(candidate.modules, size: candidate.size)
            if score < bestScore { best = mask; bestScore = score }
        }
        return best
    }
}
