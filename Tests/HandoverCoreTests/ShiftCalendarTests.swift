import Foundation
@testable import HandoverCore
import PropertyBased
import Testing

/// The weeks and shifts the usage report counts in (``ShiftCalendar``): ISO 8601 weeks, shifts
/// that cover a week without gap or overlap, in the hospital's time zone.
@Suite struct ShiftCalendarTests {
    @Test func twoShiftsADayMakeFifteenWindowsAWeek() throws {
        let calendar = ShiftCalendar()
        let start = try #require(calendar.weekStart(named: "2026-W48"))
        #expect(start.formatted(.iso8601) == "2026-11-23T00:00:00Z")
        let shifts = calendar.shifts(ofWeekStarting: start)
        #expect(shifts.count == 15, "Monday 00:00 to 07:00, then two a day")
        #expect(calendar.name(shifts[1]) == "Mon 07:00" && calendar.name(shifts[14]) == "Sun 19:00")
        #expect(calendar.weekName(start) == "2026-W48")
        for bad in ["2026-48", "2026-W00", "2026-W54", "W48", "26-W48", "2026-Wxx"] { #expect(calendar.weekStart(named: bad) == nil, "\(bad)") }
        #expect(calendar.weekStart(named: "2026-W53") != nil && calendar.weekStart(named: "2027-W53") == nil, "2026 has 53 ISO weeks, 2027 52")
        #expect(calendar.weekStart(named: "2026-w48") == start, "as people type it")
    }

    @Test func aWeekAcrossTheChangeToSummerTimeIs167Hours() throws {
        let london = try #require(TimeZone(identifier: "Europe/London"))
        let calendar = try #require(ShiftCalendar(starts: [0, 7 * 60, 19 * 60], timeZone: london))
        let start = try #require(calendar.weekStart(named: "2026-W13"))  // the clocks go forward on Sunday 29 March
        let shifts = calendar.shifts(ofWeekStarting: start)
        #expect(calendar.weekEnd(start).timeIntervalSince(start) == 167 * 3600)
        #expect(shifts.count == 21 && calendar.name(shifts[20]) == "Sun 19:00")
    }

    @Test func shiftStartsAreReadAsTimesOfDay() {
        #expect(ShiftCalendar.parseStarts("07:00,19:00") == [420, 1140])
        #expect(ShiftCalendar.parseStarts(" 7:30 , 15:30,23:30") == [450, 930, 1410])
        for bad in ["", "7", "24:00", "07:60", "07:00;19:00", "07:0", "x:00"] { #expect(ShiftCalendar.parseStarts(bad) == nil, "\(bad)") }
    }

    /// Any shift starts, any time zone, any week: the shifts are in order, each ends where the
    /// next starts, the first starts with the week and the last ends with it; the week's name
    /// names it back.
    @Test func anyCalendarCoversEachWeekExactly() async {
        let zones = ["UTC", "Europe/London", "America/Chicago", "Australia/Lord_Howe", "Asia/Kolkata", "Pacific/Chatham"]
        let starts = Gen<Int>.int(in: 0...(24 * 60 - 1)).array(of: 1...4)
        let picks = Gen<Int>.int(in: 0...10_000)
        await propertyCheck(count: 200, input: starts, picks) { starts, pick in
            guard let zone = TimeZone(identifier: zones[pick % zones.count]), let calendar = ShiftCalendar(starts: starts, timeZone: zone) else {
                Issue.record("a calendar of \(starts)")
                return
            }
            let start = calendar.weekStart(of: Date(timeIntervalSince1970: 1_700_000_000 + Double(pick) * 86_400 * 3.3))
            let shifts = calendar.shifts(ofWeekStarting: start)
            #expect(shifts.first?.start == start && shifts.last?.end == calendar.weekEnd(start))
            #expect(zip(shifts, shifts.dropFirst()).allSatisfy { $0.end == $1.start && $0.start < $0.end })
            #expect(calendar.weekStart(named: calendar.weekName(start)) == start)
            #expect(calendar.weekStart(of: start.addingTimeInterval(3600)) == start)
        }
    }
}
