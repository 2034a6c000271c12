/// How much of a QR code may be damaged or hidden and still be read.
///
/// Higher levels spend more of the symbol on Reed–Solomon error correction, so the same data
/// needs a larger code. `.medium` is the usual choice for codes shown on a screen; `.high` suits
/// printed codes that may be scuffed or partly covered by a logo.
///
/// | Level       | Letter | Recovers about |
/// |-------------|--------|----------------|
/// | `.low`      | L      | 7 % of codewords  |
/// | `.medium`   | M      | 15 % of codewords |
/// | `.quartile` | Q      | 25 % of codewords |
/// | `.high`     | H      | 30 % of codewords |
public enum ErrorCorrectionLevel: String, CaseIterable, Sendable, Hashable, CustomStringConvertible {
    case low = "L"
    case medium = "M"
    case quartile = "Q"
    case high = "H"

    /// Reads a level from its letter (`L`, `M`, `Q`, `H`) or its name (`low`, `medium`,
    /// `quartile`, `high`), ignoring case. Returns `nil` for anything else; ``acceptedSpellings``
    /// lists what is accepted, for an error message.
    public init?(spelling: String) {
        let folded = spelling.lowercased()
        guard let level = Self.allCases.first(where: { $0.rawValue.lowercased() == folded || $0.name == folded }) else {
            return nil
        }
        self = level
    }

    /// What ``init(spelling:)`` accepts, for error messages: "L, M, Q, H (or low, medium, quartile, high)".
    public static var acceptedSpellings: String {
        allCases.map(\.rawValue).joined(separator: ", ") + " (or " + allCases.map(\.name).joined(separator: ", ") + ")"
    }

    /// The level's name in lower case: `low`, `medium`, `quartile` or `high`.
    public var name: String {
        switch self {
        case .low: "low"
        case .medium: "medium"
        case .quartile: "quartile"
        case .high: "high"
        }
    }

    /// The approximate share of codewords that can be restored, in percent (7, 15, 25 or 30).
    public var recoverablePercent: Int {
        switch self {
        case .low: 7
        case .medium: 15
        case .quartile: 25
        case .high: 30
        }
    }

    /// The letter, as the standard writes it: `L`, `M`, `Q` or `H`.
    public var description: String { rawValue }

    /// The two bits that stand for this level in the format information (ISO/IEC 18004 table 12).
    /// They are not in the levels' order: L is 01, M 00, Q 11 and H 10.
    var formatBits: Int {
        switch self {
        case .low: 0b01
        case .medium: 0b00
        case .quartile: 0b11
        case .high: 0b10
        }
    }

    /// The row of this level in ``VersionTable``'s per-level tables.
    var tableIndex: Int {
        switch self {
        case .low: 0
        case .medium: 1
        case .quartile: 2
        case .high: 3
        }
    }
}
