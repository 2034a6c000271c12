import Foundation

/// A week's use of the fleet, by site (issue 66, item 8): how many devices were in use each
/// shift, how many hand-overs there were and how they ended, which apps failed to sign out, and
/// which devices nobody used all week. The dashboard shows it (`/dashboard/reports/usage`) and
/// gives it as CSV; ``UsageReportStore`` reads it.
public struct UsageReport: Sendable, Equatable {
    /// The ISO week, `2026-W48`.
    public var week: String
    public var start: Date
    public var end: Date
    /// The week's shifts, in order, and their names (`Mon 07:00`).
    public var shifts: [ShiftCalendar.Shift]
    public var shiftNames: [String]
    /// One entry per site with devices, sorted by name; devices with no site last.
    public var sites: [SiteUsage]

    public init(week: String, start: Date, end: Date, shifts: [ShiftCalendar.Shift], shiftNames: [String], sites: [SiteUsage]) {
        self.week = week
        self.start = start
        self.end = end
        self.shifts = shifts
        self.shiftNames = shiftNames
        self.sites = sites
    }

    /// A site's week.
    public struct SiteUsage: Sendable, Equatable {
        /// The site as written; nil for the devices of no site.
        public var site: String?
        /// Devices registered by the week's end and not retired.
        public var devices: Int
        /// Devices in use in each shift (held by someone at some moment of it, or handed over in it).
        public var inUse: [Int]
        /// Hand-overs (logout runs) started in the week.
        public var handOvers: Int
        public var completed: Int
        public var failed: Int
        /// Still running when the report was read.
        public var running: Int
        /// Apps that did not sign out (failed or timed out), with how many times, most first.
        public var failuresByApp: [AppFailures]
        /// Devices neither held nor handed over all week: their names, at most ``UsageReportStore/notSeenListed``.
        public var notSeen: [String]
        public var notSeenCount: Int

        public init(site: String?, devices: Int = 0, inUse: [Int], handOvers: Int = 0, completed: Int = 0, failed: Int = 0, running: Int = 0,
                    failuresByApp: [AppFailures] = [], notSeen: [String] = [], notSeenCount: Int = 0) {
            self.site = site
            self.devices = devices
            self.inUse = inUse
            self.handOvers = handOvers
            self.completed = completed
            self.failed = failed
            self.running = running
            self.failuresByApp = failuresByApp
            self.notSeen = notSeen
            self.notSeenCount = notSeenCount
        }
    }

    /// One app's failures to sign out.
    public struct AppFailures: Sendable, Equatable {
        public var app: String
        public var count: Int

        public init(app: String, count: Int) {
            self.app = app
            self.count = count
        }
    }

    /// The report as CSV (``CSVWriter``), one figure a row: `site,figure,subject,value`.
    ///
    /// | figure | subject | value |
    /// |---|---|---|
    /// | `devices` | | devices registered by the week's end and not retired |
    /// | `hand_overs`, `completed`, `failed`, `running` | | hand-overs started in the week, by how they ended |
    /// | `in_use` | the shift's start, ISO 8601 | devices in use in that shift |
    /// | `app_failures` | the app's name | times it did not sign out |
    /// | `not_seen` | | devices neither held nor handed over all week |
    /// | `not_seen_device` | the device's name | |
    package var csv: String {
        var rows: [[String]] = [["site", "figure", "subject", "value"]]
        for site in sites {
            let name = site.site ?? ""
            rows.append([name, "devices", "", String(site.devices)])
            rows.append([name, "hand_overs", "", String(site.handOvers)])
            rows.append([name, "completed", "", String(site.completed)])
            rows.append([name, "failed", "", String(site.failed)])
            rows.append([name, "running", "", String(site.running)])
            for (shift, count) in zip(shifts, site.inUse) {
                rows.append([name, "in_use", shift.start.formatted(.iso8601), String(count)])
            }
            for failure in site.failuresByApp { rows.append([name, "app_failures", failure.app, String(failure.count)]) }
            rows.append([name, "not_seen", "", String(site.notSeenCount)])
            for device in site.notSeen { rows.append([name, "not_seen_device", device, ""]) }
        }
        return CSVWriter.render(rows)
    }
}
