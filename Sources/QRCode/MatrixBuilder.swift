/// Lays out a symbol's modules: the function patterns, the codewords, the mask and the format
/// and version information (ISO/IEC 18004 sections 6.3 and 7.7–7.10).
///
/// Coordinates are `x` (column, left to right) and `y` (row, top to bottom), from 0.
struct MatrixBuilder {
    let version: Int
    let size: Int
    /// Row-major: module (x, y) is at `y * size + x`. `true` is dark.
    private(set) var modules: [Bool]
    /// Which modules belong to function patterns (and so are neither data nor masked).
    private(set) var isFunction: [Bool]

    init(version: Int) {
        self.version = version
        size = VersionTable.size(of: version)
        modules = Array(repeating: false, count: size * size)
        isFunction = Array(repeating: false, count: size * size)
        drawFunctionPatterns()
    }

    private mutating func set(_ x: Int, _ y: Int, dark: Bool) {
        modules[y * size + x] = dark
        isFunction[y * size + x] = true
    }

    // MARK: Function patterns

    /// Finder patterns with their separators, timing patterns, alignment patterns, the dark
    /// module, and the areas for format and version information (reserved here, filled later).
    private mutating func drawFunctionPatterns() {
        for i in 0..<size {  // timing patterns, row 6 and column 6
            set(6, i, dark: i % 2 == 0)
            set(i, 6, dark: i % 2 == 0)
        }
        drawFinderPattern(centreX: 3, centreY: 3)
        drawFinderPattern(centreX: size - 4, centreY: 3)
        drawFinderPattern(centreX: 3, centreY: size - 4)

        let centres = VersionTable.alignmentPatternCentres(version: version)
        let last = centres.count - 1
        for (i, x) in centres.enumerated() {
            for (j, y) in centres.enumerated() {
                // The three corners that finder patterns occupy get none.
                if (i == 0 && j == 0) || (i == 0 && j == last) || (i == last && j == 0) { continue }
                drawAlignmentPattern(centreX: x, centreY: y)
            }
        }
        drawFormatInformation(0)  // reserve the area; overwritten once the mask is known
        drawVersionInformation()
    }

    /// A 7 × 7 finder pattern (dark ring, light ring, 3 × 3 dark centre) and the one-module light
    /// separator around it, clipped at the symbol's edge.
    private mutating func drawFinderPattern(centreX: Int, centreY: Int) {
        for dy in -4...4 {
            for dx in -4...4 {
                let x = centreX + dx, y = centreY + dy
                guard (0..<size).contains(x), (0..<size).contains(y) else { continue }
                let ring = max(abs(dx), abs(dy))
                set(x, y, dark: ring != 2 && ring != 4)
            }
        }
    }

    /// A 5 × 5 alignment pattern: dark ring, light ring, dark centre.
    private mutating func drawAlignmentPattern(centreX: Int, centreY: Int) {
        for dy in -2...2 {
            for dx in -2...2 {
                set(centreX + dx, centreY + dy, dark: max(abs(dx), abs(dy)) != 1)
            }
        }
    }

    /// Writes the 15 format information bits twice: around the top-left finder, and split between
    /// the top-right and bottom-left finders; plus the dark module above the bottom-left one.
    mutating func drawFormatInformation(_ bits: Int) {
        func bit(_ i: Int) -> Bool { (bits >> i) & 1 != 0 }
        // Around the top-left finder: bits 0–7 down column 8 (skipping the timing row), 8–14 leftwards along row 8.
        for i in 0...5 { set(8, i, dark: bit(i)) }
        set(8, 7, dark: bit(6))
        set(8, 8, dark: bit(7))
        set(7, 8, dark: bit(8))
        for i in 9..<15 { set(14 - i, 8, dark: bit(i)) }
        // The second copy: bits 0–7 leftwards along row 8 from the right edge, 8–14 down column 8 at the bottom.
        for i in 0..<8 { set(size - 1 - i, 8, dark: bit(i)) }
        for i in 8..<15 { set(8, size - 15 + i, dark: bit(i)) }
        set(8, size - 8, dark: true)
    }

    /// For versions 7 and up: the 18 version information bits in two 6 × 3 blocks, above the
    /// bottom-left finder and left of the top-right finder.
    private mutating func drawVersionInformation() {
        guard version >= 7 else { return }
        let bits = FormatInformation.versionBits(version: version)
        for i in 0..<18 {
            let dark = (bits >> i) & 1 != 0
            let a = size - 11 + i % 3, b = i / 3
            set(a, b, dark: dark)
            set(b, a, dark: dark)
        }
    }

    // MARK: Codewords and mask

    /// Places the final codeword sequence in two-module-wide columns, zig-zagging upwards and
    /// downwards from the bottom-right corner and stepping over the vertical timing pattern; each
    /// codeword's most significant bit first. Modules left over (remainder bits) stay light.
    mutating func placeCodewords(_ codewords: [UInt8]) {
        let bitCount = codewords.count * 8
        var index = 0
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }  // column 6 is the timing pattern
            let upward = (right + 1) & 2 == 0
            for step in 0..<size {
                let y = upward ? size - 1 - step : step
                for x in stride(from: right, through: right - 1, by: -1) where !isFunction[y * size + x] && index < bitCount {
                    modules[y * size + x] = (codewords[index >> 3] >> (7 - UInt8(index & 7))) & 1 != 0
                    index += 1
                }
            }
            right -= 2
        }
        assert(index == bitCount, "every codeword bit has a module")
    }

    /// XORs the mask into every non-function module; applying the same mask again undoes it.
    mutating func apply(_ mask: Mask) {
        for y in 0..<size {
            for x in 0..<size where !isFunction[y * size + x] && mask.inverts(x: x, y: y) {
                modules[y * size + x].toggle()
            }
        }
    }
}
