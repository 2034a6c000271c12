import Foundation
@testable import HandoverClient
import PropertyBased
import Testing

/// `Retry-After` as RFC 9110 §10.2.3 defines it: `HTTP-date / delay-seconds`, where an
/// HTTP-date is any of the three forms of §5.6.7 (which a recipient MUST all accept), and
/// anything else is no value, so the caller treats the field as absent.
@Suite("Retry-After")
struct RetryAfterTests {
    /// 2026-11-18, for the RFC 850 two-digit years.
    static let now = Date(timeIntervalSince1970: 1_795_000_000)

    // MARK: An independent writer of the three forms (Foundation's calendar, not the parser's arithmetic)

    struct Stamp {
        var weekday: String, longWeekday: String, day: Int, month: String, year: Int, hour: Int, minute: Int, second: Int
    }

    static func stamp(_ date: Date) -> Stamp {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        let parts = calendar.dateComponents([.weekday, .day, .month, .year, .hour, .minute, .second], from: date)
        let weekday = (parts.weekday ?? 1) - 1
        return Stamp(weekday: ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][weekday],
                     longWeekday: ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"][weekday],
                     day: parts.day ?? 0,
                     month: ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][(parts.month ?? 1) - 1],
                     year: parts.year ?? 0, hour: parts.hour ?? 0, minute: parts.minute ?? 0, second: parts.second ?? 0)
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    static func time(_ s: Stamp) -> String { "\(pad(s.hour, 2)):\(pad(s.minute, 2)):\(pad(s.second, 2))" }
    /// `Sun, 06 Nov 1994 08:49:37 GMT`
    static func imfFixdate(_ s: Stamp) -> String { "\(s.weekday), \(pad(s.day, 2)) \(s.month) \(pad(s.year, 4)) \(time(s)) GMT" }
    /// `Sunday, 06-Nov-94 08:49:37 GMT`
    static func rfc850(_ s: Stamp) -> String { "\(s.longWeekday), \(pad(s.day, 2))-\(s.month)-\(pad(s.year % 100, 2)) \(time(s)) GMT" }
    /// `Sun Nov  6 08:49:37 1994`
    static func asctime(_ s: Stamp) -> String {
        "\(s.weekday) \(s.month) \(s.day < 10 ? " \(s.day)" : String(s.day)) \(time(s)) \(pad(s.year, 4))"
    }

    // MARK: delay-seconds

    /// Any `1*DIGIT`, with leading zeros and with the spaces and tabs around a field value
    /// (§5.5), is that many seconds.
    @Test func anyDigitsAreThatManySeconds() async {
        let padding = Gen<Character?>.element(of: [" ", "\t"] as [Character]).map { $0 ?? " " }.string(of: 0...3)
        await propertyCheck(count: 500, input: Gen<UInt64>.uint64(), Gen<Int>.int(in: 0...3), padding) { seconds, zeros, around in
            let value = RetryAfter(around + String(repeating: "0", count: zeros) + String(seconds) + around, now: Self.now)
            #expect(value == .seconds(seconds))
            #expect(value?.delay(from: Self.now) == .seconds(Int64(clamping: seconds)))
        }
        #expect(RetryAfter("120", now: Self.now) == .seconds(120))  // §10.2.3's example
        #expect(RetryAfter("123456789012345678901234567890", now: Self.now) == .seconds(.max))
    }

    /// A sign, a fraction, a unit, hexadecimal, inner spaces, other white space: not delay-seconds.
    @Test func numbersThatAreNotDelaySecondsAreNoValue() async {
        await propertyCheck(count: 200, input: Gen<UInt32>.uint32()) { seconds in
            for text in ["+\(seconds)", "-\(seconds)", "\(seconds).0", "\(seconds)s", "\(seconds) s", "0x\(seconds)",
                         "\(seconds) 1", "\n\(seconds)", "\(seconds)\r\n", "\u{00A0}\(seconds)", "１\(seconds)", "\(seconds),\(seconds)"] {
                #expect(RetryAfter(text, now: Self.now) == nil, "\(text.debugDescription)")
            }
        }
        for text in ["", " ", "\t", "-0", "1e3", "∞"] {
            #expect(RetryAfter(text, now: Self.now) == nil, "\(text.debugDescription)")
        }
    }

    // MARK: HTTP-date

    /// §5.6.7's own example, in each of its three forms.
    @Test func theRFCsExampleReadsTheSameInEveryForm() {
        let expected = RetryAfter.date(Date(timeIntervalSince1970: 784_111_777))
        #expect(RetryAfter("Sun, 06 Nov 1994 08:49:37 GMT", now: Self.now) == expected)
        #expect(RetryAfter("Sunday, 06-Nov-94 08:49:37 GMT", now: Self.now) == expected)
        #expect(RetryAfter("Sun Nov  6 08:49:37 1994", now: Self.now) == expected)
        #expect(RetryAfter("Fri, 31 Dec 1999 23:59:59 GMT", now: Self.now) == .date(Date(timeIntervalSince1970: 946_684_799)))  // §10.2.3
    }

    /// Any instant from 1900 to 9999, to the second, written as an IMF-fixdate or in asctime's
    /// form, reads back as that instant.
    @Test func anyInstantReadsBackInTheFixedAndAsctimeForms() async {
        await propertyCheck(count: 500, input: Gen<Int64>.int64(in: -2_208_988_800...253_402_300_799)) { seconds in
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            let stamp = Self.stamp(date)
            #expect(RetryAfter(Self.imfFixdate(stamp), now: Self.now) == .date(date), "\(Self.imfFixdate(stamp))")
            #expect(RetryAfter(Self.asctime(stamp), now: Self.now) == .date(date), "\(Self.asctime(stamp))")
        }
    }

    /// An RFC 850 date's two-digit year is this century's, unless that is more than 50 years
    /// ahead, then the century before's (§5.6.7): any instant from 49 years back to 50 ahead.
    @Test func anRFC850YearIsTheNearestThatIsNotMoreThanFiftyYearsAhead() async {
        // 1977-01-01 to 2076-12-31, around `now` in 2026.
        await propertyCheck(count: 500, input: Gen<Int64>.int64(in: 220_924_800...3_376_684_799)) { seconds in
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            let text = Self.rfc850(Self.stamp(date))
            #expect(RetryAfter(text, now: Self.now) == .date(date), "\(text)")
        }
        #expect(RetryAfter("Wednesday, 01-Jan-76 00:00:00 GMT", now: Self.now) == .date(Date(timeIntervalSince1970: 3_345_062_400)))  // 2076: 50 ahead
        #expect(RetryAfter("Tuesday, 01-Jan-80 00:00:00 GMT", now: Self.now) == .date(Date(timeIntervalSince1970: 315_532_800)))  // 1980, not 2080
    }

    /// Any valid date broken in one place is no value: names in the wrong case (§5.6.7: HTTP-date
    /// is case-sensitive), a zone other than GMT, a missing comma, a field of the wrong width, a
    /// day, hour, minute or second out of range, anything before or after.
    @Test func aDateBrokenAnywhereIsNoValue() async {
        await propertyCheck(count: 300, input: Gen<Int64>.int64(in: 0...4_102_444_799)) { seconds in
            let s = Self.stamp(Date(timeIntervalSince1970: TimeInterval(seconds)))
            let fixed = Self.imfFixdate(s)
            var broken = [fixed.lowercased(), fixed.uppercased(), fixed.replacingOccurrences(of: " GMT", with: " UTC"),
                          fixed.replacingOccurrences(of: ",", with: ""), "x" + fixed, fixed + "x", fixed + "\r",
                          fixed.replacingOccurrences(of: " GMT", with: "GMT"), fixed.replacingOccurrences(of: " \(Self.pad(s.year, 4)) ", with: " \(s.year % 100) "),
                          "\(s.weekday), \(s.day) \(s.month) \(Self.pad(s.year, 4)) \(Self.time(s)) GMT",  // a one-digit day (when it is one)
                          Self.rfc850(s).replacingOccurrences(of: "-", with: " "), Self.asctime(s).replacingOccurrences(of: " \(Self.pad(s.year, 4))", with: " GMT"),
                          "\(s.longWeekday), \(Self.pad(s.day, 2)) \(s.month) \(s.year) \(Self.time(s)) GMT"]
            for (field, value) in [("day", "00"), ("day", "32"), ("hour", "24"), ("minute", "60"), ("second", "61"), ("day", "3x")] {
                var parts = [Self.pad(s.day, 2), Self.pad(s.hour, 2), Self.pad(s.minute, 2), Self.pad(s.second, 2)]
                parts[["day", "hour", "minute", "second"].firstIndex(of: field) ?? 0] = value
                broken.append("\(s.weekday), \(parts[0]) \(s.month) \(Self.pad(s.year, 4)) \(parts[1]):\(parts[2]):\(parts[3]) GMT")
            }
            for text in broken where text != fixed {
                #expect(RetryAfter(text, now: Self.now) == nil, "\(text.debugDescription)")
            }
        }
    }

    /// The day must exist: February 29 only in leap years (every fourth, but not centuries unless
    /// a fourth one), the 31st only in long months; a leap second (:60) is a time of day.
    @Test func onlyDaysThatExist() {
        #expect(RetryAfter("Thu, 29 Feb 2024 00:00:00 GMT", now: Self.now) == .date(Date(timeIntervalSince1970: 1_709_164_800)))
        #expect(RetryAfter("Tue, 29 Feb 2000 00:00:00 GMT", now: Self.now) != nil)
        #expect(RetryAfter("Wed, 29 Feb 2023 00:00:00 GMT", now: Self.now) == nil)
        #expect(RetryAfter("Thu, 29 Feb 1900 00:00:00 GMT", now: Self.now) == nil)
        #expect(RetryAfter("Thu, 31 Apr 2026 00:00:00 GMT", now: Self.now) == nil)
        #expect(RetryAfter("Thu, 31 Dec 2026 00:00:00 GMT", now: Self.now) != nil)
        #expect(RetryAfter("Wed, 31 Dec 2025 23:59:60 GMT", now: Self.now) == .date(Date(timeIntervalSince1970: 1_767_225_600)))
    }

    /// Any string of ASCII characters is delay-seconds exactly when it is digits (between spaces
    /// and tabs), and otherwise no value: random text is never taken for a date.
    @Test func anyOtherTextIsNoValue() async {
        await propertyCheck(count: 1_000, input: Gen<Character>.ascii.string(of: 0...40)) { text in
            let core = text.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
            let value = RetryAfter(text, now: Self.now)
            if !core.isEmpty, core.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }) {
                #expect(value.map { if case .seconds = $0 { true } else { false } } == true, "\(text.debugDescription)")
            } else {
                #expect(value == nil, "\(text.debugDescription)")
            }
        }
    }

    // MARK: The delay

    /// Seconds are that long from now; a date is the time left until it, and zero once past.
    @Test func theDelayIsCountedFromNow() {
        #expect(RetryAfter.seconds(120).delay(from: Self.now) == .seconds(120))
        #expect(RetryAfter.seconds(.max).delay(from: Self.now) == .seconds(Int64.max))
        #expect(RetryAfter.date(Self.now.addingTimeInterval(90)).delay(from: Self.now) == .seconds(90))
        #expect(RetryAfter.date(Self.now.addingTimeInterval(-90)).delay(from: Self.now) == .zero)
        #expect(RetryAfter.date(Date.distantFuture).delay(from: Self.now) > .seconds(86_400 * 365 * 900))
    }
}
