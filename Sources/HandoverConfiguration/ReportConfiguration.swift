import Foundation
import HandoverCore

extension ServerConfiguration {
    /// Reads `HANDOVER_SHIFT_STARTS` and `HANDOVER_REPORT_TIME_ZONE` into `configuration`.
    package static func readReportSettings(_ environment: [String: String], into configuration: inout ServerConfiguration) throws {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let starts = try value("HANDOVER_SHIFT_STARTS").map { try parseShiftStarts($0, setting: "HANDOVER_SHIFT_STARTS") } ?? configuration.shifts.starts
        let zone = try value("HANDOVER_REPORT_TIME_ZONE").map { try parseTimeZone($0, setting: "HANDOVER_REPORT_TIME_ZONE") } ?? configuration.shifts.timeZone
        configuration.shifts = ShiftCalendar(starts: starts, timeZone: zone) ?? configuration.shifts
    }

    /// Reads the times shifts start, `07:00,19:00`.
    public static func parseShiftStarts(_ text: String, setting: String) throws -> [Int] {
        guard let starts = ShiftCalendar.parseStarts(text) else {
            throw ConfigurationError(setting: setting, problem: "'\(text.prefix(80))' is not a list of times of day", accepted: ShiftCalendar.acceptedStarts)
        }
        return starts
    }

    /// Reads an IANA time zone, `Europe/London`.
    public static func parseTimeZone(_ text: String, setting: String) throws -> TimeZone {
        guard let zone = TimeZone(identifier: text.trimmingCharacters(in: .whitespaces)) else {
            throw ConfigurationError(setting: setting, problem: "'\(text.prefix(80))' is not a time zone",
                                     accepted: "an IANA time zone name such as Europe/London, America/Chicago or UTC")
        }
        return zone
    }
}
