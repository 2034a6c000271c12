import DeviceSimulator
import Foundation
import HandoverCore
import HandoverServer
import LinkCallbacks
import Testing

/// The weekly usage report (issue 66, item 8): its figures are the hand-overs the fleet made,
/// counted independently by the test (a known week) and by the shift-change storm's own tally.
@Suite("Usage report", .serialized, .timeLimit(.minutes(10)), .stopsTestServers)
struct UsageReportTests {
    /// The report as CSV rows, keyed `site|figure|subject`.
    static func figures(_ csv: String) throws -> [String: String] {
        let table = try CSVTable(parsing: csv)
        var figures: [String: String] = [:]
        for row in table.records.map(\.fields) { figures[row.prefix(3).joined(separator: "|")] = row.count > 3 ? row[3] : "" }
        return figures
    }

    /// A known week: ICU's three phones, one handed over cleanly, one with Mail answering error,
    /// one never used; Ward 7's phone whose Chart never answers.
    @Test(arguments: TestDatabase.available) func aKnownWeekIsCountedBySiteShiftAndApp(database: TestDatabase) async throws {
        try await TestServer.with(database) { test in
            _ = try await test.registerTarget("Mail", deadline: 5, maxReissues: 0)
            _ = try await test.registerTarget("Chart", deadline: 5, maxReissues: 0)
            let clean = try await test.registerDevice("ICU-01", site: "ICU")
            let mailFails = try await test.registerDevice("ICU-02", site: "icu")
            _ = try await test.registerDevice("ICU-03", site: "ICU")
            let ward = try await test.registerDevice("W7-01", site: "Ward 7")
            for (device, failing) in [(clean, nil), (mailFails, "Mail"), (ward, "Chart")] as [((id: String, key: String), String?)] {
                let run = try await LogoutRunTests.startRun(test, device: device)
                for item in run.items {
                    let app = try #require(item["app"] as? String)
                    if failing == "Chart", app == "Chart" { continue }  // never answers: times out
                    let ulc = try UniversalLinkCallback(parsing: try #require(item["link"] as? String))
                    let url = (app == failing ? ulc.error : ulc.success).absoluteString
                    #expect(try await test.request(.POST, "/api/v1/logout-runs/\(run.id)/callbacks", json: ["url": url], key: device.key).status == 200)
                }
            }
            test.clock.advance(by: 6)
            try await test.server.fireDeadlines()

            let admin = DashboardBrowser(test)
            _ = try await admin.signIn(key: test.adminKey)
            // The test clock starts on Friday 2027-01-15 08:00 UTC: ISO week 2027-W02, in its Friday day shift.
            let csv = try await admin.get("/dashboard/reports/usage.csv")
            #expect(csv.status == 200 && csv.headers.first(name: "Content-Disposition")?.contains("usage-2027-W02.csv") == true)
            let figures = try Self.figures(csv.text)
            #expect(figures["ICU|devices|"] == "3" && figures["ICU|hand_overs|"] == "2" && figures["ICU|completed|"] == "1" && figures["ICU|failed|"] == "1")
            #expect(figures["ICU|app_failures|Mail"] == "1" && figures["ICU|app_failures|Chart"] == nil)
            #expect(figures["ICU|not_seen|"] == "1" && figures["ICU|not_seen_device|ICU-03"] == "")
            #expect(figures["Ward 7|hand_overs|"] == "1" && figures["Ward 7|failed|"] == "1" && figures["Ward 7|app_failures|Chart"] == "1")
            #expect(figures["ICU|in_use|2027-01-15T07:00:00Z"] == "2" && figures["Ward 7|in_use|2027-01-15T07:00:00Z"] == "1", "\(csv.text)")
            #expect(figures["ICU|in_use|2027-01-14T19:00:00Z"] == "0", "the night before: nobody")
            #expect(figures.keys.filter { $0.hasPrefix("ICU|in_use|") }.count == 15, "Monday's early hours, then 14 shifts")

            let page = try await admin.get("/dashboard/reports/usage?week=2027-W02")
            #expect(page.status == 200 && page.text.contains("Usage, week 2027-W02") && page.text.contains("ICU-03"))
            let earlier = try Self.figures(try await admin.get("/dashboard/reports/usage.csv?week=2027-W01").text)
            #expect(earlier["ICU|devices|"] == nil, "no device was registered then")
            let refused = try await admin.get("/dashboard/reports/usage?week=2027-02")
            #expect(refused.status == 400 && refused.text.contains("is not an ISO week"))

        }
    }

    /// The "Done when" line: the weekly report's figures match a storm's known counts (the
    /// storm's own tally of the runs it started and how each ended).
    @Test func theReportCountsAStormAsTheStormDoes() async throws {
        try await TestServer.with(.sqlite) { test in
            let plan = ShiftChangePlan(devices: 60, apps: 4, windowSeconds: 3, stallRate: 0, failureRate: 0.05, browserShare: 0.2,
                                       duplicateRate: 0, deadlineSeconds: 60, pageSamples: 0, checksOut: false)
            let bench = ShiftChangeBench(plan: plan, servers: [test.server.baseURL], adminKey: test.adminKey, databaseName: "sqlite")
            let fleet = try await bench.register { _ in }
            let figures = await bench.storm(fleet, setupSeconds: 0) { _ in }
            #expect(figures.runs.started == 60 && figures.runs.unfinished == 0, "\(figures.refusals)")
            let admin = DashboardBrowser(test)
            _ = try await admin.signIn(key: test.adminKey)
            let report = try Self.figures(try await admin.get("/dashboard/reports/usage.csv").text)
            print("usage report of a 60-phone storm: \(figures.runs.completed) completed, \(figures.runs.failed) failed by the storm's tally")
            #expect(report["|devices|"] == "60")
            #expect(report["|hand_overs|"] == String(figures.runs.started))
            #expect(report["|completed|"] == String(figures.runs.completed) && report["|failed|"] == String(figures.runs.failed))
            let appFailures = report.filter { $0.key.hasPrefix("|app_failures|") }.values.compactMap(Int.init).reduce(0, +)
            #expect(appFailures >= figures.runs.failed && (figures.runs.failed == 0) == (appFailures == 0), "each failed run has an app that failed")
            #expect(report.filter { $0.key.hasPrefix("|in_use|") }.values.compactMap(Int.init).max() == 60, "every phone in the storm's shift")
            #expect(report["|not_seen|"] == "0")
        }
    }
}
