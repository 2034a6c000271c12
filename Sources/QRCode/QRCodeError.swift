/// Why a ``QRCode`` could not be made.
public enum QRCodeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The data needs more room than the largest symbol, version 40, has at this error correction
    /// level. `maximum` is the most bytes that fit there (2,953 at L, 2,331 at M, 1,663 at Q, 1,273 at H).
    case dataTooLong(byteCount: Int, maximum: Int, correction: ErrorCorrectionLevel)

    /// A requested minimum version outside 1...40.
    case versionOutOfRange(Int)

    /// A requested mask outside 0...7.
    case maskOutOfRange(Int)

    /// One sentence a person can act on.
    public var description: String {
        switch self {
        case let .dataTooLong(byteCount, maximum, correction):
            "\(Self.grouped(byteCount)) bytes do not fit at ECC \(correction): the most is \(Self.grouped(maximum))"
                + (correction == .low ? "" : " (\(Self.grouped(QRCode.capacity(version: 40, correction: .low))) at ECC L)")
        case let .versionOutOfRange(version):
            "version \(version) does not exist: QR code versions are 1 to 40"
        case let .maskOutOfRange(mask):
            "mask \(mask) does not exist: QR code masks are 0 to 7"
        }
    }

    /// 1273 -> "1,273", without a locale, so messages read the same everywhere.
    static func grouped(_ number: Int) -> String {
        let digits = String(number.magnitude)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return number < 0 ? "-" + result : result
    }
}
