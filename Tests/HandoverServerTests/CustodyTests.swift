import Foundation
import HandoverServer
import LinkCallbacks
import Testing

/// Custody (issue 40): a sign-in that carries a device checks it out to the person, the device's
/// next logout run checks it in, and a person holds one device at a time.
@Suite(.serialized, .timeLimit(.minutes(5)), .stopsTestServers) struct CustodyTests {
    @Test(arguments: TestDatabase.available) func aSignInChecksTheDeviceOutAndItsHandOverChecksItIn(database: TestDatabase) async throws {
        let rig = try await AppleRig.start(database)
        let test = rig.test
        let mail = try await test.registerTarget("Mail", deadline: 5, maxReissues: 0)
        let first = try await test.registerDevice("ward-7-phone-1")
        let second = try await test.registerDevice("ward-7-phone-2")
        let browser = DashboardBrowser(test)
        _ = try await browser.signIn(key: test.adminKey)

        _ = try await rig.signIn(sub: "nurse-1", email: "ada@hospital.example", extra: ["deviceID": first.id])
        var page = try await browser.get("/dashboard/devices/\(first.id)")
        #expect(page.text.contains("<strong>Ada Nurse</strong></a> (ada@hospital.example)") && page.text.contains("(Sign in with Apple)"),
                "\(page.text)")
        // The same person signing in again on the same device keeps the one custody.
        _ = try await rig.signIn(sub: "nurse-1", email: "ada@hospital.example", extra: ["deviceID": first.id])

        // One device per person: a sign-in on a second device is refused, naming the first.
        var body = try await rig.credential(sub: "nurse-1", email: "ada@hospital.example")
        body["deviceID"] = second.id
        let refused = try await test.request(.POST, "/auth/apple", json: body)
        #expect(refused.status == 409 && refused.errorCode == "already_holds_a_device" && refused.text.contains("still holds ward-7-phone-1"),
                "\(refused.text)")

        // The hand-over checks the device in, with its run.
        let run = try await test.request(.POST, "/api/v1/devices/\(first.id)/logout-runs", json: ["apps": [mail]], key: first.key)
        #expect(run.status == 201)
        page = try await browser.get("/dashboard/devices/\(first.id)")
        #expect(page.text.contains("Nobody holds this device now.") && page.text.contains("id=\"custody-history\"")
                && page.text.contains("Ada Nurse") && page.text.contains("/dashboard/runs/"), "\(page.text)")
        // Handed over, the person may take another device.
        _ = try await rig.signIn(sub: "nurse-1", email: "ada@hospital.example", extra: ["deviceID": second.id])
        // Someone else signing in before a hand-over takes the device over; the first custody ends without a run.
        _ = try await rig.signIn(sub: "nurse-2", email: "bo@hospital.example", extra: ["deviceID": second.id])
        page = try await browser.get("/dashboard/devices/\(second.id)")
        #expect(page.text.contains("(bo@hospital.example)"))
        #expect(page.text.contains("the next person signed in before a hand-over"), "\(page.text)")
        try await rig.stop()
    }

    @Test func aLimitOfZeroLetsAPersonHoldSeveralDevices() async throws {
        let rig = try await AppleRig.start(.sqlite) { $0.sessions.custodyLimit = 0 }
        let first = try await rig.test.registerDevice("ward-7-phone-1")
        let second = try await rig.test.registerDevice("ward-7-phone-2")
        _ = try await rig.signIn(sub: "nurse-1", extra: ["deviceID": first.id])
        _ = try await rig.signIn(sub: "nurse-1", extra: ["deviceID": second.id])
        try await rig.stop()
    }

    @Test func aHeldDeviceIsOverdueCountedFromItsCheckOut() async throws {
        let rig = try await AppleRig.start(.sqlite) { $0.overdueAfter = 13 * 3600 }
        let test = rig.test
        _ = try await test.registerTarget("Mail", deadline: 5, maxReissues: 0)
        let held = try await test.registerDevice("ward-7-phone-1")
        let idle = try await test.registerDevice("ward-7-phone-2")
        rig.advance(12 * 3600)
        _ = try await rig.signIn(sub: "nurse-1", extra: ["deviceID": held.id])  // checked out 12 h after registration
        rig.advance(2 * 3600)
        // 14 h after registration: the idle device is overdue; the held one was checked out 2 h ago.
        #expect(try await test.server.markOverdueDevices() == 1)
        let idleNow = try await test.request(.GET, "/api/v1/devices/\(idle.id)", key: test.adminKey)
        let heldNow = try await test.request(.GET, "/api/v1/devices/\(held.id)", key: test.adminKey)
        // Overdue, the idle device's run started at once (handing over); the held one is in service.
        #expect(idleNow.json["status"] as? String != "in_service" && heldNow.json["status"] as? String == "in_service", "\(idleNow.text)")
        rig.advance(12 * 3600)
        #expect(try await test.server.markOverdueDevices() == 1, "13 h after its check-out")
        let history = try await test.request(.GET, "/api/v1/devices/\(held.id)/history", key: test.adminKey)
        // The history says since when and how, not who: the custody names the person, and forgets them after the retention.
        #expect(history.text.contains("held since") && history.text.contains("without a hand-over (checked out by Sign in with Apple)")
                && history.text.contains("lending period 13 h") && !history.text.contains("Ada"), "\(history.text)")
        try await rig.stop()
    }

    @Test func theCustodyReportListsEachHandOverByAPIPageCSVAndPerson() async throws {
        let rig = try await AppleRig.start(.sqlite)
        let test = rig.test
        let mail = try await test.registerTarget("Mail", deadline: 5, maxReissues: 0)
        let notes = try await test.registerTarget("Notes", deadline: 5, maxReissues: 0)
        var devices: [(id: String, key: String)] = []
        for index in 1...3 {
            let device = try await test.registerDevice("ward-7-phone-\(index)", site: index == 3 ? "ICU" : "Ward-7")
            devices.append(device)
            _ = try await rig.signIn(sub: "nurse-\(index)", email: "nurse\(index)@hospital.example", extra: ["deviceID": device.id])
            let run = try await test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", json: ["apps": [mail, notes]], key: device.key)
            let items = run.json["items"] as? [[String: Any]] ?? []
            // Each app answers success, but Notes on the second phone answers error.
            for item in items {
                let link = try #require(item["link"] as? String)
                let callbacks = try UniversalLinkCallback(parsing: link)
                let failed = index == 2 && (item["app"] as? String) == "Notes"
                let answer = try await test.request(.POST, "/api/v1/logout-runs/\(run.json["id"] as? String ?? "")/callbacks",
                                                    json: ["url": (failed ? callbacks.error : callbacks.success).absoluteString], key: device.key)
                #expect(answer.status == 200, "\(answer.text)")
            }
        }
        let report = try await test.request(.GET, "/api/v1/custody", key: test.adminKey)
        #expect(report.status == 200 && report.json["total"] as? Int == 3, "\(report.text)")
        let rows = report.json["custodies"] as? [[String: Any]] ?? []
        #expect(rows.map { $0["deviceName"] as? String } == ["ward-7-phone-3", "ward-7-phone-2", "ward-7-phone-1"] || rows.count == 3)
        let second = try #require(rows.first { $0["deviceName"] as? String == "ward-7-phone-2" })
        #expect(second["runStatus"] as? String == "failed" && second["appsLeftSignedIn"] as? [String] == ["Notes"], "\(second)")
        #expect(second["personEmail"] as? String == "nurse2@hospital.example" && second["checkedOutBy"] as? String == "sign_in_with_apple")
        let one = try await test.request(.GET, "/api/v1/custody?device=\(devices[0].id)", key: test.adminKey)
        #expect(one.json["total"] as? Int == 1)

        let browser = DashboardBrowser(test)
        _ = try await browser.signIn(key: test.adminKey)
        let csv = try await browser.get("/dashboard/custody.csv")
        let lines = csv.text.split(separator: "\r\n")
        #expect(csv.status == 200 && lines.count == 4 && lines[0].hasPrefix("device,deviceID,site,person,email"), "\(csv.text)")
        #expect(csv.text.contains("ward-7-phone-2") && csv.text.contains(",failed,Notes"))
        let user = try #require(second["userID"] as? String)
        let person = try await browser.get("/dashboard/custody?person=\(user)")
        #expect(person.text.contains("Devices held by Ada Nurse") && person.text.contains("ward-7-phone-2") && !person.text.contains("ward-7-phone-1")
                && person.text.contains("still signed in: Notes"), "\(person.text)")
        let search = try await browser.get("/dashboard/custody?q=NURSE3")
        #expect(search.text.contains("1 custody") && search.text.contains("ward-7-phone-3"))
        try await rig.stop()
    }
}
