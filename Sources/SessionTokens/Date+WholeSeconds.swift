import Foundation

extension Date {
    /// The date truncated to a whole second, as `iat` and `exp` carry it: validators that compare
    /// with an integral clock (joserfc does) would call a fractional `iat` "issued in the future".
    public var wholeSeconds: Date { Date(timeIntervalSince1970: timeIntervalSince1970.rounded(.down)) }
}
