import Foundation
import HandoverConfiguration
import HandoverCore
@testable import HandoverServer
import Testing

/// The lending period per site, the overview's devices held past it, and the custody records'
/// retention (issue 40, items 3, 5 and 7).
@Suite(.serialized, .timeLimit(.minutes(5)), .stopsTestServers) struct LendingPeriodTests {
    static func setSite(_ test: TestServer, _ device: String, _ site: String) async throws {
        let reply = try await test.request(.PATCH, "/api/v1/devices/\(device)", json: ["site": site], key: test.adminKey)
        #expect(reply.status == 200, "\(reply.text)")
    }

    @Test(arguments: TestDatabase.available) func aSiteHasItsOwnLendingPeriodAndTheOverviewListsDevicesHeldPastIt(database: TestDatabase) async throws {
        let icuSite = try SiteName("ICU")
        let rig = try await AppleRig.start(database) {
            $0.overdueAfter = 13 * 3600
            $0.custody.siteLendingPeriods = [icuSite: 2 * 3600]
        }
        let test = rig.test
        _ = try await test.registerTarget("Mail", deadline: 5, maxReissues: 0)
        let icu = try await test.registerDevice("icu-phone-1")
        let ward = try await test.registerDevice("ward-7-phone-1")
        try await Self.setSite(test, icu.id, "ICU")
        _ = try await rig.signIn(sub: "nurse-1", email: "ada@hospital.example", extra: ["deviceID": icu.id])
        _ = try await rig.signIn(sub: "nurse-2", email: "bo@hospital.example", extra: ["deviceID": ward.id])
        let browser = DashboardBrowser(test)
        _ = try await browser.signIn(key: test.adminKey)
        var overview = try await browser.get("/dashboard")
        #expect(overview.text.contains("Held past the lending period (0)"), "\(overview.text)")

        rig.advance(3 * 3600)
        // Three hours on: past ICU's two, within the fleet's thirteen. Listed before the pass acts.
        _ = try await browser.signIn(key: test.adminKey)  // the dashboard's session idled out meanwhile
        overview = try await browser.get("/dashboard")
        let section = try #require(overview.text.components(separatedBy: "id=\"held-too-long\"").dropFirst().first?
            .components(separatedBy: "</section>").first)
        #expect(section.contains("Held past the lending period (1)") && section.contains("icu-phone-1") && section.contains("Ada Nurse")
                && section.contains("2 h") && !section.contains("ward-7-phone-1"), "\(section)")
        #expect(try await test.server.markOverdueDevices() == 1, "only the ICU phone")
        let history = try await test.request(.GET, "/api/v1/devices/\(icu.id)/history", key: test.adminKey)
        #expect(history.text.contains("lending period 2 h at ICU"), "\(history.text)")
        // Its hand-over (started by the pass) goes unanswered: out of service, and still listed with its last holder.
        rig.advance(6)
        try await test.server.fireDeadlines()
        overview = try await browser.get("/dashboard")
        #expect(overview.text.contains("icu-phone-1") && overview.text.contains("(last holder)"), "\(overview.text)")

        rig.advance(11 * 3600)
        #expect(try await test.server.markOverdueDevices() == 1, "the ward phone, 14 h after its check-out under the fleet's 13 h")
        try await rig.stop()
    }

    /// Before: a Jamf Pro export's site "Ward 7" was refused ("'Ward 7' is not a site name"),
    /// though the lending periods' own example (`ICU=9h,Ward 7=13h`) names it. Now a site is
    /// written as people write it, trimmed, shown as written and compared ignoring case: in the
    /// import, the list filter, the lending period and a role's site scope.
    @Test(arguments: TestDatabase.available) func aJamfSiteAsWrittenImportsAndItsLendingPeriodAndScopeApply(database: TestDatabase) async throws {
        let custody = try ServerConfiguration.fromEnvironment(["HANDOVER_LENDING_PERIODS": "ward 7=2h"]).custody
        let rig = try await AppleRig.start(database) { $0.custody = custody }
        let test = rig.test
        _ = try await test.registerTarget("Mail", deadline: 5, maxReissues: 0)
        let jamf = """
            Display Name,Serial Number,Management ID,Site
            Ward 7 phone 1,C02JAMF00007,0a7e5c3c-7777-4f0b-9a51-6d7b9f1d2c07, Ward 7 \("")
            Station phone 1,C02JAMF00008,0a7e5c3c-8888-4f0b-9a51-6d7b9f1d2c08,Station Ä
            """
        let report = try await DeviceImport.run(csv: Data(jamf.utf8), dryRun: false, in: test.server.databases, now: rig.test.clock.now())
        #expect(report.refused.isEmpty, "\(report.refused)")
        let ward = try #require(report.imported.first)
        let listed = try await test.request(.GET, "/api/v1/devices?site=WARD%207", key: test.adminKey).array
        #expect(listed.map { $0["name"] as? String } == ["Ward 7 phone 1"] && listed.first?["site"] as? String == "Ward 7", "shown as written: \(listed)")
        let station = try await test.request(.GET, "/api/v1/devices?site=station%20%C3%A4", key: test.adminKey).array
        #expect(station.map { $0["name"] as? String } == ["Station phone 1"], "\(station)")
        let scoped = try RoleMap(parsing: "night-desk=viewer@WARD 7").permissions(for: ["night-desk"])
        let seen = try await DeviceSearch(sites: SiteFilter(sites: scoped.visibleSites)).run(on: test.server.databases.primary, now: test.clock.now())
        #expect(seen.devices.map(\.name) == ["Ward 7 phone 1"] && scoped.allows(.viewer, at: "Ward 7"))

        _ = try await rig.signIn(sub: "nurse-1", email: "ada@hospital.example", extra: ["deviceID": ward.id.uuidString.lowercased()])
        rig.advance(3 * 3600)
        #expect(try await test.server.markOverdueDevices() == 1, "Ward 7's two hours, though the setting writes it 'ward 7'")
        let history = try await test.request(.GET, "/api/v1/devices/\(ward.id.uuidString.lowercased())/history", key: test.adminKey)
        #expect(history.text.contains("lending period 2 h at Ward 7"), "\(history.text)")
        try await rig.stop()
    }

    @Test(arguments: TestDatabase.available) func afterTheRetentionARecordForgetsThePersonAndKeepsTheRest(database: TestDatabase) async throws {
        let rig = try await AppleRig.start(database)
        let test = rig.test
        let mail = try await test.registerTarget("Mail", deadline: 5, maxReissues: 0)
        let old = try await test.registerDevice("ward-7-phone-1")
        let held = try await test.registerDevice("ward-7-phone-2")
        _ = try await rig.signIn(sub: "nurse-1", email: "ada@hospital.example", extra: ["deviceID": old.id])
        let run = try await test.request(.POST, "/api/v1/devices/\(old.id)/logout-runs", json: ["apps": [mail]], key: old.key)
        #expect(run.status == 201)
        _ = try await rig.signIn(sub: "nurse-2", email: "bo@hospital.example", extra: ["deviceID": held.id])

        rig.advance(6 * 365 * 86_400)
        #expect(try await test.server.forgetExpiredCustodyNames() == 0, "six years of 365 days is not yet six years of 365.25")
        rig.advance(2 * 86_400)
        #expect(try await test.server.forgetExpiredCustodyNames() == 1)
        #expect(try await test.server.forgetExpiredCustodyNames() == 0, "once")
        let report = try await test.request(.GET, "/api/v1/custody", key: test.adminKey)
        let records = try #require(report.json["custodies"] as? [[String: Any]])
        let forgotten = try #require(records.first { ($0["deviceName"] as? String) == "ward-7-phone-1" })
        #expect(forgotten["personName"] == nil && forgotten["personEmail"] == nil, "\(forgotten)")
        #expect(forgotten["checkedOutAt"] != nil && forgotten["checkedInAt"] != nil && forgotten["runID"] != nil
                && forgotten["userID"] != nil && forgotten["deviceName"] as? String == "ward-7-phone-1", "the rest is kept: \(forgotten)")
        // A device still held is never touched, however old.
        let open = try #require(records.first { ($0["deviceName"] as? String) == "ward-7-phone-2" })
        #expect(open["personEmail"] as? String == "bo@hospital.example", "\(open)")
        try await rig.stop()
    }

    @Test func lendingPeriodsAndRetentionAreCheckedWhenTheServerStarts() throws {
        let configuration = try ServerConfiguration.fromEnvironment([
            "HANDOVER_LENDING_PERIODS": "ICU=13h, Ward 7=9h", "HANDOVER_CUSTODY_RETENTION": "7y", "HANDOVER_OVERDUE_AFTER": "14h"])
        #expect(configuration.custody.siteLendingPeriods == [try SiteName("ICU"): TimeInterval(13 * 3600), try SiteName("Ward 7"): TimeInterval(9 * 3600)])
        #expect(configuration.custody.siteLendingPeriods.keys.map(\.text).sorted() == ["ICU", "Ward 7"], "kept as written")
        #expect(configuration.custody.retention == 7 * 365.25 * 86_400)
        #expect(configuration.custody.lendingPeriod(site: "Ward 7") == TimeInterval(9 * 3600))
        #expect(configuration.custody.lendingPeriod(site: "ward 7") == TimeInterval(9 * 3600), "a site is compared ignoring case")
        #expect(configuration.custody.lendingPeriod(site: "ED") == TimeInterval(14 * 3600))
        #expect(configuration.custody.lendingPeriod(site: nil) == TimeInterval(14 * 3600))
        #expect(ServerConfiguration().custody.retention == 6 * 365.25 * 86_400, "six years by default")
        for bad in ["ICU", "=13h", "ICU=forever", "ICU=10s", "IC\tU=13h", "ICU+ER=13h"] {
            #expect(throws: ConfigurationError.self, "\(bad)") { try ServerConfiguration.fromEnvironment(["HANDOVER_LENDING_PERIODS": bad]) }
        }
        for bad in ["6", "6w", "1h", "60y", "y"] {
            #expect(throws: ConfigurationError.self, "\(bad)") { try ServerConfiguration.fromEnvironment(["HANDOVER_CUSTODY_RETENTION": bad]) }
        }
        do {
            _ = try ServerConfiguration.parseLendingPeriod("ICU=forever", setting: "--lending-period")
            Issue.record("accepted")
        } catch let error as ConfigurationError {
            #expect(error.description.contains("--lending-period (ICU)") && error.description.contains("13h"), "\(error.description)")
        }
    }
}
