/// One of the eight mask patterns a QR code's data modules are XORed with (ISO/IEC 18004
/// table 10), so that the symbol has no large blank areas or finder-like shapes to confuse a reader.
///
/// The encoder tries all eight and keeps the one with the lowest penalty (ISO/IEC 18004 §7.8.3); the chosen mask's
/// reference is written into the format information so a reader can undo it.
public struct Mask: Hashable, Sendable, CustomStringConvertible {
    /// The mask pattern reference written in the symbol, 0 to 7.
    public let reference: Int

    /// The mask with this reference, or `nil` outside 0...7.
    public init?(reference: Int) {
        guard (0...7).contains(reference) else { return nil }
        self.reference = reference
    }

    /// All eight masks, in reference order.
    public static let all: [Mask] = (0...7).map { Mask(uncheckedReference: $0) }

    private init(uncheckedReference: Int) { reference = uncheckedReference }

    public var description: String { "mask \(reference)" }

    /// Whether the mask flips the module in column `x`, row `y` (i = row, j = column in the standard).
    @inline(__always)
    func inverts(x: Int, y: Int) -> Bool {
        switch reference {
        case 0: (x + y) % 2 == 0
        case 1: y % 2 == 0
        case 2: x % 3 == 0
        case 3: (x + y) % 3 == 0
        case 4: (x / 3 + y / 2) % 2 == 0
        case 5: (x * y) % 2 + (x * y) % 3 == 0
        case 6: ((x * y) % 2 + (x * y) % 3) % 2 == 0
        default: ((x + y) % 2 + (x * y) % 3) % 2 == 0
        }
    }
}

/// The penalty score of a finished symbol (ISO/IEC 18004 section 7.8.3): lower is easier to read.
///
/// - N1: each run of five or more same-coloured modules in a row or column scores 3, plus 1 for
///   each module beyond five.
/// - N2: each 2 × 2 block of one colour scores 3 (overlapping blocks all count).
/// - N3: each 1:1:3:1:1 finder-like pattern (dark-light-dark×3-light-dark) with four light modules
///   on either side, in a row or column, scores 40. The light quiet zone around the symbol counts
///   as light.
/// - N4: 10 for every full 5 % the share of dark modules is away from 50 %.
///
/// Each rule is one pass over the modules, so scoring is linear in the symbol's area.
enum Penalty {
    static let run = 3, block = 3, finderLike = 40, balance = 10

    /// The score of `modules`, row-major, `size` × `size`.
    static func score(_ modules: [Bool], size: Int) -> Int {
        var total = 0
        modules.withUnsafeBufferPointer { grid in
            for line in 0..<size {
                total += scoreLine(size: size) { grid[line * size + $0] }  // row `line`
                total += scoreLine(size: size) { grid[$0 * size + line] }  // column `line`
            }
            for y in 0..<(size - 1) {
                for x in 0..<(size - 1) {
                    let colour = grid[y * size + x]
                    if grid[y * size + x + 1] == colour && grid[(y + 1) * size + x] == colour
                        && grid[(y + 1) * size + x + 1] == colour {
                        total += block
                    }
                }
            }
            var dark = 0
            for module in grid where module { dark += 1 }
            let count = size * size
            // |dark/count − 1/2| in whole steps of 5 %: |20·dark − 10·count| / count.
            total += balance * (abs(dark * 20 - count * 10) / count)
        }
        return total
    }

    /// Dark-light pattern 1011101 0000 and its mirror 0000 1011101, as 11-bit windows.
    static let finderThenLight = 0b101_1101_0000, lightThenFinder = 0b000_0101_1101

    /// N1 and N3 for one row or column, read through `module(i)`.
    @inline(__always)
    private static func scoreLine(size: Int, _ module: (Int) -> Bool) -> Int {
        var total = 0
        var runColour = false, runLength = 0
        var window = 0  // the last 11 modules, newest in bit 0; starts as four light quiet-zone modules
        for i in 0..<size {
            let colour = module(i)
            if colour == runColour {
                runLength += 1
            } else {
                if runLength >= 5 { total += run + runLength - 5 }
                runColour = colour
                runLength = 1
            }
            window = (window << 1 | (colour ? 1 : 0)) & 0x7FF
            if i >= 6 && (window == finderThenLight || window == lightThenFinder) { total += finderLike }
        }
        if runLength >= 5 { total += run + runLength - 5 }
        for _ in 0..<4 {  // the quiet zone after the line
            window = (window << 1) & 0x7FF
            if window == finderThenLight { total += finderLike }
        }
        return total
    }
}
