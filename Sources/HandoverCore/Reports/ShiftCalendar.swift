import Foundation

/// The shifts of a week, as a hospital names them: the times of day shifts start
/// (`HANDOVER_SHIFT_STARTS`, `07:00,19:00` by default) in its time zone
/// (`HANDOVER_REPORT_TIME_ZONE`, UTC by default). A week is an ISO 8601 week (`2026-W48`),
/// Monday 00:00 to the next Monday 00:00 in that zone; its shifts cover it without gap or
/// overlap, the first one starting at Monday 00:00 when no shift does (the night shift that began
/// on Sunday, cut at the week's start).
public struct ShiftCalendar: Sendable, Equatable {
    /// Minutes after midnight each shift starts, ascending, at least one.
    public private(set) var starts: [Int]
    public var timeZone: TimeZone

    /// Two twelve-hour shifts, 07:00 and 19:00 UTC.
    public init() {
        starts = [7 * 60, 19 * 60]
        timeZone = TimeZone(identifier: "UTC")!
    }

    /// Shifts starting at `starts` (minutes after midnight) in `timeZone`; nil when `starts` is
    /// empty or a value is not a time of day.
    public init?(starts: [Int], timeZone: TimeZone) {
        let sorted = Set(starts).sorted()
        guard let first = sorted.first, let last = sorted.last, first >= 0, last < 24 * 60 else { return nil }
        self.starts = sorted
        self.timeZone = timeZone
    }

    /// What ``parseStarts(_:)`` accepts, as its refusals say.
    public static let acceptedStarts = "times of day, HH:MM, comma-separated, such as 07:00,19:00 or 07:00,15:00,23:00"

    /// Reads `07:00,19:00`; nil when any entry is not HH:MM.
    public static func parseStarts(_ text: String) -> [Int]? {
        var minutes: [Int] = []
        for entry in text.split(separator: ",") {
            let parts = entry.trimmingCharacters(in: .whitespaces).split(separator: ":")
            guard parts.count == 2, parts[0].count <= 2, parts[1].count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]),
                  (0..<24).contains(hour), (0..<60).contains(minute) else { return nil }
            minutes.append(hour * 60 + minute)
        }
        return minutes.isEmpty ? nil : minutes
    }

    /// A shift of the week: from `start` up to (not including) `end`.
    public struct Shift: Sendable, Equatable {
        public var start: Date
        public var end: Date
    }

    private var calendar: Calendar {
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = timeZone
        return calendar
    }

    /// The Monday 00:00 that starts the week of `date`.
    public func weekStart(of date: Date) -> Date {
        let calendar = calendar
        let parts = calendar.dateComponents([.yearForWeekOfYear, .weekOfYear], from: date)
        return calendar.date(from: DateComponents(weekday: 2, weekOfYear: parts.weekOfYear, yearForWeekOfYear: parts.yearForWeekOfYear)) ?? date
    }

    /// The start of ISO week `2026-W48`, or nil when the text is not one.
    public func weekStart(named text: String) -> Date? {
        let parts = text.uppercased().split(separator: "-W")
        guard parts.count == 2, parts[0].count == 4, let year = Int(parts[0]), let week = Int(parts[1]), (1...53).contains(week),
              (1970...9999).contains(year) else { return nil }
        let calendar = calendar
        guard let start = calendar.date(from: DateComponents(weekday: 2, weekOfYear: week, yearForWeekOfYear: year)),
              calendar.component(.weekOfYear, from: start) == week else { return nil }
        return start
    }

    /// `2026-W48`, the name of the week that starts at `start`.
    public func weekName(_ start: Date) -> String {
        let parts = calendar.dateComponents([.yearForWeekOfYear, .weekOfYear], from: start)
        return String(format: "%04d-W%02d", parts.yearForWeekOfYear ?? 0, parts.weekOfYear ?? 0)
    }

    /// The week after the one that starts at `start` (seven days later on the calendar: 167 or
    /// 169 hours across a change of summer time).
    public func weekEnd(_ start: Date) -> Date {
        calendar.date(byAdding: .day, value: 7, to: start) ?? start.addingTimeInterval(7 * 86_400)
    }

    /// The shifts of the week that starts at `start`, in order, covering it exactly.
    public func shifts(ofWeekStarting start: Date) -> [Shift] {
        let calendar = calendar
        let end = weekEnd(start)
        var boundaries: [Date] = [start]
        for day in 0..<7 {
            guard let midnight = calendar.date(byAdding: .day, value: day, to: start) else { continue }
            for minute in starts {
                // The time of day on the calendar, not minutes after midnight: 07:00 stays 07:00 on
                // the day summer time starts.
                guard let time = calendar.date(bySettingHour: minute / 60, minute: minute % 60, second: 0, of: midnight) else { continue }
                if time > start, time < end { boundaries.append(time) }
            }
        }
        boundaries = Array(Set(boundaries)).sorted() + [end]
        return zip(boundaries, boundaries.dropFirst()).map { Shift(start: $0, end: $1) }
    }

    /// A shift as the report names it: `Mon 07:00`.
    public func name(_ shift: Shift) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = "EEE HH:mm"
        return formatter.string(from: shift.start)
    }
}
