import Foundation
import HandoverServer
import Testing

/// A device leaving the fleet (issue 66): retired for good (its key revoked, no run starts on it,
/// never overdue, listed apart, its history kept), or deleted when no hand-over names it (an
/// import mistake). The API and the device's dashboard page, with their refusals.
@Suite("Device retirement", .serialized, .timeLimit(.minutes(5)), .stopsTestServers)
struct DeviceRetirementTests {
    /// The audit log's entries of `type`, each entry's JSON.
    static func auditEntries(_ test: TestServer, type: String) async throws -> [[String: Any]] {
        let size = try #require(try await test.request(.GET, "/api/v1/audit/entries?start=0&end=0", key: test.adminKey).json["treeSize"] as? Int)
        let list = try await test.request(.GET, "/api/v1/audit/entries?start=0&end=\(size)", key: test.adminKey).json["entries"] as? [[String: Any]] ?? []
        return list.compactMap { $0["entry"] as? [String: Any] }.filter { $0["type"] as? String == type }
    }

    @Test(arguments: TestDatabase.available) func anAdminRetiresADeviceForGoodAndItsRecordStays(database: TestDatabase) async throws {
        try await TestServer.with(database, configure: { $0.overdueAfter = 13 * 3600 }) { test in
            let mail = try await test.registerTarget("Mail", deadline: 5, maxReissues: 0)
            let device = try await test.registerDevice("ward-7-phone-8", site: "Ward 7")
            let path = "/api/v1/devices/\(device.id)/retire"
            let run = try await test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", json: ["apps": [mail]], key: device.key)
            #expect(run.status == 201)

            // Not while its hand-over is under way.
            let during = try await test.request(.POST, path, json: ["note": "recycled"], key: test.adminKey)
            #expect(during.status == 409 && during.json["error"] as? String == "hand_over_under_way", "\(during.text)")
            test.clock.advance(by: 6)
            try await test.server.fireDeadlines()

            // The admin role, and a note.
            let operatorKey = try await test.server.createAPIKey(name: "desk", scope: .operator)
            let viewerKey = try await test.server.createAPIKey(name: "wall", scope: .viewer)
            #expect(try await test.request(.POST, path, json: ["note": "recycled"], key: operatorKey).status == 403)
            #expect(try await test.request(.POST, path, json: ["note": "recycled"], key: viewerKey).status == 403)
            #expect(try await test.request(.POST, path, json: ["note": "recycled"], key: device.key).status == 403)
            let noNote = try await test.request(.POST, path, json: ["note": " "], key: test.adminKey)
            #expect(noNote.status == 422 && noNote.json["error"] as? String == "note_required" && noNote.json["field"] as? String == "note",
                    "\(noNote.text)")
            #expect(try await test.request(.POST, "/api/v1/devices/\(UUID().uuidString)/retire", json: ["note": "x"], key: test.adminKey).status == 404)

            let retired = try await test.request(.POST, path, json: ["note": "Screen broken; sent for recycling, ticket 5120."], key: test.adminKey)
            #expect(retired.status == 200 && retired.json["status"] as? String == "retired", "\(retired.text)")
            #expect(retired.json["statusReason"] as? String == "Screen broken; sent for recycling, ticket 5120.")
            let again = try await test.request(.POST, path, json: ["note": "again"], key: test.adminKey)
            #expect(again.status == 409 && again.json["error"] as? String == "device_retired", "\(again.text)")

            // Its key is revoked; no run starts on it, not even an admin's; it gets no new key.
            let byDevice = try await test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", json: ["apps": [mail]], key: device.key)
            #expect(byDevice.status == 401, "\(byDevice.text)")
            let byAdmin = try await test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", json: ["apps": [mail]], key: test.adminKey)
            #expect(byAdmin.status == 409 && byAdmin.json["error"] as? String == "device_retired", "\(byAdmin.text)")
            let rekey = try await test.request(.POST, "/api/v1/devices/\(device.id)/key", key: test.adminKey)
            #expect(rekey.status == 409 && rekey.json["error"] as? String == "device_retired", "\(rekey.text)")
            let back = try await test.request(.POST, "/api/v1/devices/\(device.id)/back-in-service", json: ["note": "found"], key: test.adminKey)
            #expect(back.status == 409, "nothing brings it back: \(back.text)")

            // Never overdue.
            test.clock.advance(by: 14 * 3600)
            #expect(try await test.server.markOverdueDevices() == 0)
            #expect(try await test.request(.GET, "/api/v1/devices/\(device.id)", key: test.adminKey).json["status"] as? String == "retired")

            // Its history, the audit log and the admin history record it; its run stays.
            let history = try await test.request(.GET, "/api/v1/devices/\(device.id)/history", key: test.adminKey).array
            let step = try #require(history.first)
            #expect(step["event"] as? String == "retired" && step["fromStatus"] as? String == "out_of_service" && step["toStatus"] as? String == "retired",
                    "\(history)")
            #expect(step["note"] as? String == "Screen broken; sent for recycling, ticket 5120." && (step["actor"] as? String)?.contains("admin key") == true)
            #expect(try await Self.auditEntries(test, type: "device.retired").count == 1)
            let admin = try await Self.auditEntries(test, type: "admin.device_changed")
            #expect(admin.contains { "\($0)".contains("retired ward-7-phone-8 at Ward 7: Screen broken") }, "\(admin)")
            #expect(try await test.request(.GET, "/api/v1/logout-runs/\(run.json["id"] as? String ?? "")", key: test.adminKey).status == 200)

            // Listed apart on the API by its status; deleting it is refused, saying why.
            let listed = try await test.request(.GET, "/api/v1/devices?status=retired", key: test.adminKey).array
            #expect(listed.map { $0["id"] as? String } == [device.id.lowercased()] || listed.map { $0["id"] as? String } == [device.id], "\(listed)")
            let delete = try await test.request(.DELETE, "/api/v1/devices/\(device.id)", key: test.adminKey)
            #expect(delete.status == 409 && delete.json["error"] as? String == "device_has_runs", "\(delete.text)")
            let reason = delete.json["reason"] as? String ?? ""
            #expect(reason.contains("receipts name it") && reason.contains("Retire it instead"), "\(reason)")
        }
    }

    @Test(arguments: TestDatabase.available) func aDeviceNoHandOverNamesIsDeleted(database: TestDatabase) async throws {
        try await TestServer.with(database) { test in
            let device = try await test.registerDevice("imported-by-mistake")
            let path = "/api/v1/devices/\(device.id)"
            let operatorKey = try await test.server.createAPIKey(name: "desk", scope: .operator)
            #expect(try await test.request(.DELETE, path, key: operatorKey).status == 403)
            #expect(try await test.request(.DELETE, path, key: device.key).status == 403)
            #expect(try await test.request(.DELETE, "/api/v1/devices/\(UUID().uuidString)", key: test.adminKey).status == 404)
            let deleted = try await test.request(.DELETE, path, key: test.adminKey)
            #expect(deleted.status == 204, "\(deleted.text)")
            #expect(try await test.request(.GET, path, key: test.adminKey).status == 404)
            #expect(try await test.request(.POST, "\(path)/logout-runs", key: device.key).status == 401, "its key is revoked")
            let admin = try await Self.auditEntries(test, type: "admin.device_changed")
            #expect(admin.contains { "\($0)".contains("deleted imported-by-mistake") }, "\(admin)")
        }
    }

    /// Nobody stays signed in on a retired device: while someone is (here a Native SSO session
    /// bound to it), retiring and deleting are refused until a hand-over signs them out.
    @Test func aDeviceSomeoneIsSignedInOnIsHandedOverBeforeItIsRetired() async throws {
        let rig = try await AppleRig.start(.sqlite)
        do {
            let test = rig.test
            try await test.registerTarget("handover", deadline: 5, maxReissues: 0)
            let device = try await test.registerDevice("ward-7-phone-5")
            let grant = try await rig.signIn(sub: "sso-user", extra: ["scope": "openid device_sso", "deviceID": device.id])
            #expect(grant["deviceSecret"] is String, "\(grant)")
            let retire = try await test.request(.POST, "/api/v1/devices/\(device.id)/retire", json: ["note": "recycled"], key: test.adminKey)
            #expect(retire.status == 409 && retire.json["error"] as? String == "signed_in_on_device", "\(retire.text)")
            #expect((retire.json["reason"] as? String)?.contains("hand it over first") == true)
            let delete = try await test.request(.DELETE, "/api/v1/devices/\(device.id)", key: test.adminKey)
            // Signing in on it checked the person out with it: its custody record names it too.
            #expect(delete.status == 409 && ["signed_in_on_device", "device_has_runs"].contains(delete.json["error"] as? String ?? ""), "\(delete.text)")
            #expect(try await test.request(.GET, "/api/v1/devices/\(device.id)/history", key: test.adminKey).array.isEmpty, "nothing changed")

            let run = try await test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", key: test.adminKey)
            #expect(run.status == 201, "\(run.text)")
            test.clock.advance(by: 6)
            try await test.server.fireDeadlines()
            let retired = try await test.request(.POST, "/api/v1/devices/\(device.id)/retire", json: ["note": "recycled"], key: test.adminKey)
            #expect(retired.status == 200 && retired.json["status"] as? String == "retired", "\(retired.text)")
        } catch {
            try await rig.stop()
            throw error
        }
        try await rig.stop()
    }

    /// An erase a retired device still owed is never sent: retiring cancels it, in its history.
    @Test func retiringCancelsTheMDMCommandsTheDeviceStillOwed() async throws {
        guard await MDMVendorPeer.isAvailable() else { return }
        let peer = try await MDMVendorPeer(.jamf, devices: [MDMRemediationTests.serial: "17"])
        defer { peer.stop() }
        try await TestServer.with(.sqlite, configure: { $0.mdm = MDMRemediationTests.configuration(peer, action: .erase) }) { test in
            let device = try await MDMRemediationTests.failARun(test, name: "ward-7-phone-1", serial: MDMRemediationTests.serial)
            let retired = try await test.request(.POST, "/api/v1/devices/\(device)/retire", json: ["note": "Stolen; written off"], key: test.adminKey)
            #expect(retired.status == 200, "\(retired.text)")
            let history = try await MDMRemediationTests.history(test, device)
            #expect(history.map { $0["event"] as? String ?? "" }.prefix(2) == ["mdm_command_cancelled", "retired"], "\(history)")
            #expect((history.first?["reason"] as? String)?.contains("not sent: the device was retired first") == true, "\(history)")
            let browser = DashboardBrowser(test)
            _ = try await browser.signIn(key: test.adminKey)
            let page = try await browser.get("/dashboard/devices/\(device)")
            #expect(!page.text.contains("Erase this device") && page.text.contains("cancelled"), "no erase waits on a retired device")
            #expect(try await test.server.deliverMDMCommands() == 0)
        }
    }

    /// The device's page offers retire and delete to an admin at its site, not to an operator;
    /// each refusal comes back on the page with the field and the reason.
    @Test func anAdminRetiresAndDeletesFromTheDevicePage() async throws {
        try await TestServer.with(.sqlite) { test in
            let mail = try await test.registerTarget("Mail", deadline: 5, maxReissues: 0)
            let used = try await test.registerDevice("ward-7-phone-1")
            _ = try await test.request(.POST, "/api/v1/devices/\(used.id)/logout-runs", json: ["apps": [mail]], key: used.key)
            test.clock.advance(by: 6)
            try await test.server.fireDeadlines()
            let spare = try await test.registerDevice("ward-7-spare")
            let usedID = used.id.lowercased(), spareID = spare.id.lowercased()

            let browser = DashboardBrowser(test)
            let csrf = try await browser.signIn(key: test.adminKey)
            let page = try await browser.get("/dashboard/devices/\(usedID)")
            let forms = DashboardRoleTests.postForms(in: page.text)
            #expect(forms.contains("/dashboard/devices/\(usedID)/retire") && !forms.contains("/dashboard/devices/\(usedID)/delete"), "\(forms)")
            #expect(page.text.contains("It cannot be deleted"))
            #expect(DashboardRoleTests.postForms(in: try await browser.get("/dashboard/devices/\(spareID)").text).contains("/dashboard/devices/\(spareID)/delete"))

            let refusedDelete = try await browser.post("/dashboard/devices/\(usedID)/delete", [("csrf", csrf)])
            #expect(refusedDelete.status == 409 && refusedDelete.text.contains("Retire it instead"), "\(refusedDelete.status)")
            let noNote = try await browser.post("/dashboard/devices/\(usedID)/retire", [("csrf", csrf), ("note", "")])
            #expect(noNote.status == 422 && noNote.text.contains("note: say why the device leaves the fleet"), "\(noNote.status)")
            let forged = try await browser.post("/dashboard/devices/\(usedID)/retire", [("csrf", "wrong"), ("note", "x")])
            #expect(forged.status == 403)
            let done = try await browser.post("/dashboard/devices/\(usedID)/retire", [("csrf", csrf), ("note", "Dropped in the sink; recycled")])
            #expect(done.status == 303, "\(done.text)")
            let retired = try await browser.get("/dashboard/devices/\(usedID)")
            let left = DashboardRoleTests.postForms(in: retired.text)
            #expect(left.isEmpty, "a retired device offers no hand-over, key or retire form: \(left)")
            #expect(retired.text.contains("Dropped in the sink; recycled") && retired.text.contains("on the dashboard"))

            // Listed apart: the list leaves it out, its filter shows it.
            let list = try await browser.get("/dashboard/devices")
            #expect(!list.text.contains("ward-7-phone-1") && list.text.contains("ward-7-spare"), "\(list.text)")
            let apart = try await browser.get("/dashboard/devices?filter=retired")
            #expect(apart.text.contains("ward-7-phone-1") && !apart.text.contains("ward-7-spare"))

            let gone = try await browser.post("/dashboard/devices/\(spareID)/delete", [("csrf", csrf)])
            #expect(gone.status == 200 && gone.text.contains("ward-7-spare is deleted"), "\(gone.status): \(gone.text)")
            #expect(try await test.request(.GET, "/api/v1/devices/\(spareID)", key: test.adminKey).status == 404)

            // An operator is offered neither form, and is refused both.
            let spare2 = try await test.registerDevice("ward-7-spare-2")
            let operatorKey = try await test.server.createAPIKey(name: "desk", scope: .operator)
            let desk = DashboardBrowser(test)
            let deskCSRF = try await desk.signIn(key: operatorKey)
            let offered = DashboardRoleTests.postForms(in: try await desk.get("/dashboard/devices/\(spare2.id.lowercased())").text)
            #expect(!offered.contains { $0.hasSuffix("/retire") || $0.hasSuffix("/delete") } && offered.contains { $0.hasSuffix("/hand-over") }, "\(offered)")
            for action in ["retire", "delete"] {
                let reply = try await desk.post("/dashboard/devices/\(spare2.id.lowercased())/\(action)", [("csrf", deskCSRF), ("note", "x")])
                #expect(reply.status == 403 && reply.text.contains("needs admin"), "\(action): \(reply.status)")
            }
        }
    }
}
