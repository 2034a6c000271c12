import Foundation

/// A `Retry-After` field value as RFC 9110 §10.2.3 defines it: `HTTP-date / delay-seconds`.
///
/// `delay-seconds` is `1*DIGIT` (no sign, no fraction; a number too long for 64 bits stays the
/// largest one). An `HTTP-date` is any of the three forms of §5.6.7, which a recipient must all
/// accept: the IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT`, and the obsolete RFC 850
/// `Sunday, 06-Nov-94 08:49:37 GMT` and asctime `Sun Nov  6 08:49:37 1994` forms; names are
/// case-sensitive and the date must exist. Anything else is no value (`nil`): the caller treats
/// the field as absent.
enum RetryAfter: Sendable, Equatable {
    /// `delay-seconds`: wait this many seconds.
    case seconds(UInt64)
    /// `HTTP-date`: wait until then.
    case date(Date)

    /// Reads a field value; `now` dates an RFC 850 two-digit year (§5.6.7: one more than 50 years
    /// ahead of now is the last past year with those two digits). Surrounding spaces and tabs are
    /// not part of a field value (§5.5) and are ignored.
    init?(_ fieldValue: String, now: Date) {
        var bytes = Array(fieldValue.utf8)[...]
        while let first = bytes.first, first == .space || first == .tab { bytes.removeFirst() }
        while let last = bytes.last, last == .space || last == .tab { bytes.removeLast() }
        if let seconds = Self.delaySeconds(bytes) {
            self = .seconds(seconds)
        } else if let date = HTTPDate(bytes, now: now)?.date {
            self = .date(date)
        } else {
            return nil
        }
    }

    /// How long to wait from `now`: zero for a date already past.
    func delay(from now: Date) -> Duration {
        switch self {
        case .seconds(let seconds):
            return .seconds(Int64(clamping: seconds))
        case .date(let date):
            let milliseconds = (date.timeIntervalSince(now) * 1000).rounded(.up)
            guard milliseconds > 0 else { return .zero }
            return .milliseconds(Int64(min(milliseconds, Double(Int64.max / 2))))
        }
    }

    /// `1*DIGIT`, saturating at `UInt64.max`.
    private static func delaySeconds(_ bytes: ArraySlice<UInt8>) -> UInt64? {
        guard !bytes.isEmpty else { return nil }
        var value: UInt64 = 0
        for byte in bytes {
            guard let digit = byte.digit else { return nil }
            let (times, overflowTimes) = value.multipliedReportingOverflow(by: 10)
            let (plus, overflowPlus) = times.addingReportingOverflow(UInt64(digit))
            value = overflowTimes || overflowPlus ? .max : plus
        }
        return value
    }
}

/// An `HTTP-date` (RFC 9110 §5.6.7) read from its bytes, in any of its three forms.
private struct HTTPDate {
    static let dayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    static let longDayNames = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    var year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0

    init?(_ bytes: ArraySlice<UInt8>, now: Date) {
        var text = Cursor(bytes: bytes)
        if text.word(in: Self.dayNames) != nil, text.literal(",") {
            // IMF-fixdate: day-name "," SP day SP month SP year SP time-of-day SP "GMT"
            guard text.literal(" "), let day = text.digits(2), text.literal(" "), let month = text.word(in: Self.months),
                  text.literal(" "), let year = text.digits(4), text.literal(" "), text.timeOfDay(into: &self),
                  text.literal(" GMT"), text.isAtEnd else { return nil }
            (self.year, self.month, self.day) = (year, month + 1, day)
        } else if text.restart(), text.word(in: Self.longDayNames) != nil, text.literal(",") {
            // rfc850-date: day-name-l "," SP day "-" month "-" 2DIGIT SP time-of-day SP "GMT"
            guard text.literal(" "), let day = text.digits(2), text.literal("-"), let month = text.word(in: Self.months),
                  text.literal("-"), let twoDigits = text.digits(2), text.literal(" "), text.timeOfDay(into: &self),
                  text.literal(" GMT"), text.isAtEnd else { return nil }
            (self.year, self.month, self.day) = (Self.year(endingIn: twoDigits, now: now), month + 1, day)
        } else if text.restart(), text.word(in: Self.dayNames) != nil {
            // asctime-date: day-name SP month SP ( 2DIGIT / ( SP DIGIT ) ) SP time-of-day SP year
            guard text.literal(" "), let month = text.word(in: Self.months), text.literal(" ") else { return nil }
            let day: Int
            if text.literal(" ") {
                guard let digit = text.digits(1) else { return nil }
                day = digit
            } else {
                guard let digits = text.digits(2) else { return nil }
                day = digits
            }
            guard text.literal(" "), text.timeOfDay(into: &self), text.literal(" "), let year = text.digits(4),
                  text.isAtEnd else { return nil }
            (self.year, self.month, self.day) = (year, month + 1, day)
        } else {
            return nil
        }
        // The day must exist; a second of 60 is a leap second (RFC 5322 §3.3).
        guard (1...Self.daysIn(month: month, year: year)).contains(day), hour <= 23, minute <= 59, second <= 60 else {
            return nil
        }
    }

    /// Seconds since 1970, UTC (the proleptic Gregorian calendar, days counted as in
    /// H. Hinnant's `days_from_civil`).
    var date: Date {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// The year of an RFC 850 date's two digits: this century's, unless that is more than 50 years
    /// ahead of `now`, then the century before's.
    static func year(endingIn twoDigits: Int, now: Date) -> Int {
        let thisYear = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC") ?? .current, from: now).year ?? 1970
        let candidate = thisYear - thisYear % 100 + twoDigits
        return candidate - thisYear > 50 ? candidate - 100 : candidate
    }

    /// A reader over the bytes that either takes what it was asked for or nothing.
    private struct Cursor {
        let bytes: ArraySlice<UInt8>
        var index: ArraySlice<UInt8>.Index

        init(bytes: ArraySlice<UInt8>) {
            self.bytes = bytes
            index = bytes.startIndex
        }

        var isAtEnd: Bool { index == bytes.endIndex }

        /// Goes back to the start; true, so it can stand in a condition list.
        mutating func restart() -> Bool {
            index = bytes.startIndex
            return true
        }

        mutating func literal(_ text: StaticString) -> Bool {
            let expected = UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
            guard bytes.endIndex - index >= expected.count, bytes[index..<index + expected.count].elementsEqual(expected) else {
                return false
            }
            index += expected.count
            return true
        }

        /// The position in `words` of the one the bytes start with (case-sensitive).
        mutating func word(in words: [String]) -> Int? {
            for (position, word) in words.enumerated() {
                let expected = Array(word.utf8)
                if bytes.endIndex - index >= expected.count, bytes[index..<index + expected.count].elementsEqual(expected) {
                    index += expected.count
                    return position
                }
            }
            return nil
        }

        /// Exactly `count` ASCII digits, as a number.
        mutating func digits(_ count: Int) -> Int? {
            guard bytes.endIndex - index >= count else { return nil }
            var value = 0
            for byte in bytes[index..<index + count] {
                guard let digit = byte.digit else { return nil }
                value = value * 10 + digit
            }
            index += count
            return value
        }

        /// `hour ":" minute ":" second`, each two digits.
        mutating func timeOfDay(into date: inout HTTPDate) -> Bool {
            guard let hour = digits(2), literal(":"), let minute = digits(2), literal(":"), let second = digits(2) else {
                return false
            }
            (date.hour, date.minute, date.second) = (hour, minute, second)
            return true
        }
    }
}

private extension UInt8 {
    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")

    /// The value of an ASCII digit.
    var digit: Int? { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) ? Int(self - UInt8(ascii: "0")) : nil }
}
