import Foundation
import HandoverCore

/// The Usage page (`/dashboard/reports/usage`): the weekly usage report (``UsageReport``) of the
/// sites the session sees, for any role: devices in use per shift, hand-overs and how they ended,
/// failures by app, devices not seen all week, with links to the weeks before and after and to
/// the same figures as CSV.
package enum UsageReportPage {
    /// The page of `report`, a week of `shifts`: links to the weeks around it and its CSV, then
    /// each site's figures.
    @HTMLBuilder
    package static func body(_ report: UsageReport, shifts: ShiftCalendar) -> HTML {
        let (week, start, end, sites) = (report.week, report.start, report.end, report.sites)
        let previous = shifts.weekName(shifts.weekStart(of: start.addingTimeInterval(-86_400)))
        let next = shifts.weekName(end)
        HTML.element("p") {
            HTML.element("a", ["href": "?week=\(previous)"]) { "← \(previous)" }
            " · \(DashboardLayout.time(start)) to \(DashboardLayout.time(end)) (\(shifts.timeZone.identifier)) · "
            HTML.element("a", ["href": "?week=\(next)"]) { "\(next) →" }
            " · "; HTML.element("a", ["href": "/dashboard/reports/usage.csv?week=\(week)"]) { "CSV" }
        }
        summary(sites)
        inUse(shiftNames: report.shiftNames, sites: sites)
        failures(sites)
        notSeen(sites)
    }

    /// Hand-overs by site: devices, hand-overs and how they ended, devices not seen.
    package static func summary(_ sites: [UsageReport.SiteUsage]) -> HTML {
        .element("section", ["id": "usage-summary"]) {
            HTML.element("h2") { "Hand-overs by site" }
            if sites.isEmpty {
                HTML.element("p", ["class": "note"]) { "No device at the sites you see." }
            } else {
                HTML.element("table", ["id": "usage-sites"]) {
                    HTML.element("tr") {
                        for title in ["Site", "Devices", "Hand-overs", "Completed", "Failed", "Running", "Not seen"] { HTML.element("th") { title } }
                    }
                    for site in sites {
                        HTML.element("tr") {
                            HTML.element("td") { site.site ?? "no site" }
                            for value in [site.devices, site.handOvers, site.completed, site.failed, site.running, site.notSeenCount] {
                                HTML.element("td") { String(value) }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Devices in use per shift: a row per shift, a column per site.
    package static func inUse(shiftNames: [String], sites: [UsageReport.SiteUsage]) -> HTML {
        .element("section", ["id": "usage-shifts"]) {
            HTML.element("h2") { "Devices in use per shift" }
            HTML.element("div", ["class": "scroll"]) {
                HTML.element("table", ["id": "usage-in-use"]) {
                    HTML.element("tr") {
                        HTML.element("th") { "Shift" }
                        for site in sites { HTML.element("th") { site.site ?? "no site" } }
                    }
                    for (index, name) in shiftNames.enumerated() {
                        HTML.element("tr") {
                            HTML.element("td") { name }
                            for site in sites { HTML.element("td") { String(site.inUse[index]) } }
                        }
                    }
                }
            }
        }
    }

    /// The apps that did not sign out, per site, and how many times.
    package static func failures(_ sites: [UsageReport.SiteUsage]) -> HTML {
        .element("section", ["id": "usage-failures"]) {
            HTML.element("h2") { "Apps that did not sign out" }
            let rows = sites.flatMap { site in site.failuresByApp.map { (site.site, $0) } }
            if rows.isEmpty {
                HTML.element("p", ["class": "note"]) { "Every app signed out in every hand-over this week." }
            } else {
                HTML.element("table", ["id": "usage-app-failures"]) {
                    HTML.element("tr") { HTML.element("th") { "Site" }; HTML.element("th") { "App" }; HTML.element("th") { "Times" } }
                    for (site, failure) in rows {
                        HTML.element("tr") {
                            HTML.element("td") { site ?? "no site" }; HTML.element("td") { failure.app }; HTML.element("td") { String(failure.count) }
                        }
                    }
                }
            }
        }
    }

    /// The devices neither held nor handed over all week, per site.
    package static func notSeen(_ sites: [UsageReport.SiteUsage]) -> HTML {
        .element("section", ["id": "usage-not-seen"]) {
            HTML.element("h2") { "Devices not seen all week" }
            let sites = sites.filter { $0.notSeenCount > 0 }
            if sites.isEmpty {
                HTML.element("p", ["class": "note"]) { "Every device was held or handed over this week." }
            } else {
                for site in sites {
                    HTML.element("p") {
                        HTML.element("strong") { "\(site.site ?? "no site") (\(site.notSeenCount)): " }
                        site.notSeen.joined(separator: ", ") + (site.notSeenCount > site.notSeen.count ? ", …" : "")
                    }
                }
            }
        }
    }
}
