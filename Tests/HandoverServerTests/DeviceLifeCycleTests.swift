import Foundation
import HandoverServer
import LinkCallbacks
import Testing

/// A device's life cycle on the server: handing over, out of service with the reason, back in
/// service only with a note (API and dashboard), and the history that records every step.
@Suite("Device life cycle", .serialized, .timeLimit(.minutes(5)), .stopsTestServers)
struct DeviceLifeCycleTests {
    static func device(_ test: TestServer, _ id: String) async throws -> [String: Any] {
        try await test.request(.GET, "/api/v1/devices/\(id)", key: test.adminKey).json
    }

    @Test(arguments: TestDatabase.available) func aFailedRunTakesTheDeviceOutOfServiceUntilAnAdminReturnsItWithANote(database: TestDatabase) async throws {
        try await TestServer.with(database) { test in
            let mail = try await test.registerTarget("Mail", deadline: 5, maxReissues: 0)
            let device = try await test.registerDevice()
            let run = try await test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", json: ["apps": [mail]], key: device.key)
            #expect(run.status == 201)
            #expect(try await Self.device(test, device.id)["status"] as? String == "handing_over")
            test.clock.advance(by: 6)
            try await test.server.fireDeadlines()
            let out = try await Self.device(test, device.id)
            #expect(out["status"] as? String == "out_of_service" && out["statusReason"] as? String == "Mail timed out", "\(out)")

            // A run on a device out of service does not return it, even when every app signs out.
            let again = try await test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", json: ["apps": [mail]], key: device.key)
            #expect(again.status == 201)
            #expect(try await Self.device(test, device.id)["status"] as? String == "out_of_service")

            let path = "/api/v1/devices/\(device.id)/back-in-service"
            let noNote = try await test.request(.POST, path, json: ["note": "  "], key: test.adminKey)
            #expect(noNote.status == 422 && noNote.json["error"] as? String == "note_required" && noNote.json["field"] as? String == "note", "\(noNote.text)")
            let missing = try await test.request(.POST, path, json: [String: String](), key: test.adminKey)
            #expect(missing.status == 400 || missing.status == 422, "\(missing.text)")
            let control = try await test.request(.POST, path, json: ["note": "ok\u{7}"], key: test.adminKey)
            #expect(control.status == 422 && control.json["field"] as? String == "note", "\(control.text)")
            let byDevice = try await test.request(.POST, path, json: ["note": "I am fine"], key: device.key)
            #expect(byDevice.status == 403, "a device cannot return itself to service")
            let back = try await test.request(.POST, path, json: ["note": "Mail signed out by hand; checked by J. Ortiz"], key: test.adminKey)
            #expect(back.status == 200 && back.json["status"] as? String == "in_service", "\(back.text)")
            #expect(back.json["statusReason"] as? String == "Mail signed out by hand; checked by J. Ortiz")
            let twice = try await test.request(.POST, path, json: ["note": "again"], key: test.adminKey)
            #expect(twice.status == 409 && twice.json["error"] as? String == "not_out_of_service", "\(twice.text)")
            let unknown = try await test.request(.POST, "/api/v1/devices/\(UUID().uuidString)/back-in-service", json: ["note": "x"], key: test.adminKey)
            #expect(unknown.status == 404)

            let history = try await test.request(.GET, "/api/v1/devices/\(device.id)/history", key: test.adminKey).array
            #expect(history.map { $0["event"] as? String ?? "" } == ["back_in_service", "run_started", "run_failed", "run_started"], "\(history)")
            let returned = try #require(history.first)
            #expect(returned["fromStatus"] as? String == "out_of_service" && returned["toStatus"] as? String == "in_service")
            #expect(returned["note"] as? String == "Mail signed out by hand; checked by J. Ortiz")
            #expect((returned["actor"] as? String)?.contains("(admin key hov_") == true, "\(returned)")
            #expect(history[2]["reason"] as? String == "Mail timed out" && history[2]["actor"] as? String == "server")
            #expect(history[3]["actor"] as? String == "\"device ward-7-phone-3\" (device key \(device.key.prefix(12))…)", "\(history[3])")
        }
    }

    @Test func aCompletedRunReturnsTheDeviceToServiceAndStartsItsClock() async throws {
        try await TestServer.with(.sqlite) { test in
            let mail = try await test.registerTarget("Mail")
            let device = try await test.registerDevice()
            #expect(try await Self.device(test, device.id)["lastCompletedAt"] == nil)
            let run = try await test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", json: ["apps": [mail]], key: device.key)
            let link = try #require((run.json["items"] as? [[String: Any]])?.first?["link"] as? String)
            let success = try UniversalLinkCallback(parsing: link).success.absoluteString
            let report = try await test.request(.POST, "/api/v1/logout-runs/\(run.json["id"] as? String ?? "")/callbacks", json: ["url": success], key: device.key)
            #expect(report.status == 200, "\(report.text)")
            let after = try await Self.device(test, device.id)
            #expect(after["status"] as? String == "in_service" && after["lastCompletedAt"] is String, "\(after)")
            let history = try await test.request(.GET, "/api/v1/devices/\(device.id)/history", key: test.adminKey).array
            #expect(history.map { $0["event"] as? String ?? "" } == ["run_completed", "run_started"])
            let back = try await test.request(.POST, "/api/v1/devices/\(device.id)/back-in-service", json: ["note": "fine"], key: test.adminKey)
            #expect(back.status == 409)
        }
    }

    /// The dashboard lists devices that need attention, and a person returns one with a note.
    @Test func theDashboardQueueAndItsBackInServiceForm() async throws {
        try await TestServer.with(.sqlite) { test in
            let mail = try await test.registerTarget("Mail", deadline: 5, maxReissues: 0)
            let device = try await test.registerDevice("ward-9-phone-1")
            _ = try await test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", json: ["apps": [mail]], key: device.key)
            test.clock.advance(by: 6)
            try await test.server.fireDeadlines()

            let browser = DashboardBrowser(test)
            let csrf = try await browser.signIn(key: test.adminKey)
            let overview = try await browser.get("/dashboard")
            let queue = try #require(overview.text.components(separatedBy: "id=\"attention\"").last?.components(separatedBy: "</section>").first)
            #expect(queue.contains("Needs attention (1)") && queue.contains("ward-9-phone-1") && queue.contains("Mail timed out"), "\(queue)")
            let page = try await browser.get("/dashboard/devices/\(device.id)")
            #expect(page.status == 200 && page.text.contains("Put back in service") && page.text.contains("run failed"), "\(page.text)")

            let empty = try await browser.post("/dashboard/devices/\(device.id)/back-in-service", [("csrf", csrf), ("note", "")])
            #expect(empty.status == 422 && empty.text.contains("say why the device may be handed on again"), "\(empty.text)")
            let forged = try await browser.post("/dashboard/devices/\(device.id)/back-in-service", [("csrf", "wrong"), ("note", "x")])
            #expect(forged.status == 403)
            let done = try await browser.post("/dashboard/devices/\(device.id)/back-in-service", [("csrf", csrf), ("note", "Signed out of Mail by hand at the IT desk")])
            #expect(done.status == 303, "\(done.text)")
            let returned = try await browser.get("/dashboard/devices/\(device.id)")
            #expect(!returned.text.contains("Put back in service") && returned.text.contains("Signed out of Mail by hand at the IT desk"))
            #expect(returned.text.contains("on the dashboard"), "the history names who acted")
            #expect(try await browser.get("/dashboard").text.contains("Needs attention (0)"))
        }
    }

    /// "Hand over now" on a device's page (issue 66, item 1): an operator starts the run the API
    /// would, the run's timeline opens, and the device's history names who acted. Without a target
    /// app the page says why nothing started; a forged form is refused.
    @Test func anOperatorHandsADeviceOverFromItsPage() async throws {
        try await TestServer.with(.sqlite) { test in
            let device = try await test.registerDevice("ward-9-phone-2")
            let browser = DashboardBrowser(test)
            let csrf = try await browser.signIn(key: test.adminKey)
            let page = try await browser.get("/dashboard/devices/\(device.id)")
            #expect(page.text.contains("Hand over now"), "\(page.text)")

            let noApps = try await browser.post("/dashboard/devices/\(device.id)/hand-over", [("csrf", csrf)])
            #expect(noApps.status == 409 && noApps.text.contains("There are no target apps"), "\(noApps.status): \(noApps.text)")

            _ = try await test.registerTarget("Mail", deadline: 30)
            let forged = try await browser.post("/dashboard/devices/\(device.id)/hand-over", [("csrf", "wrong")])
            #expect(forged.status == 403)
            let started = try await browser.post("/dashboard/devices/\(device.id)/hand-over", [("csrf", csrf)])
            #expect(started.status == 303, "\(started.text)")
            let location = try #require(started.headers.first(name: "Location"))
            #expect(location.hasPrefix("/dashboard/runs/"), "\(location)")
            let timeline = try await browser.get(location)
            #expect(timeline.status == 200 && timeline.text.contains("Mail"), "\(timeline.text)")

            let stored = try await test.request(.GET, "/api/v1/devices/\(device.id)", key: test.adminKey)
            #expect(stored.text.contains("\"status\":\"handing_over\""), "\(stored.text)")
            let runID = String(location.dropFirst("/dashboard/runs/".count))
            #expect(stored.text.lowercased().contains(runID), "the device's last run is the one started: \(stored.text)")
            let history = try await browser.get("/dashboard/devices/\(device.id)")
            #expect(history.text.contains("run started") && history.text.contains("on the dashboard"), "the history names who acted")
        }
    }
}
