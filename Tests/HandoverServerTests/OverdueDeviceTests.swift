import Foundation
import HandoverConfiguration
import HandoverServer
import Testing

/// A device that completes no hand-over in time is marked overdue, the server starts a run for
/// it, and that run escalates like any failed one.
@Suite("Overdue devices", .serialized, .timeLimit(.minutes(5)), .stopsTestServers)
struct OverdueDeviceTests {
    @Test(arguments: TestDatabase.available) func aDeviceWithoutAHandOverInTimeIsOverdueAndItsRunEscalates(database: TestDatabase) async throws {
        try await TestServer.with(database, configure: { $0.overdueAfter = 13 * 3600 }) { test in
            let receiver = try await WebhookReceiver.start()
            _ = try await test.request(.POST, "/api/v1/webhooks", json: ["url": receiver.url, "events": ["device.overdue", "device.out_of_service"]],
                                       key: test.adminKey)
            _ = try await test.registerTarget("Mail", deadline: 5, maxReissues: 0)
            let late = try await test.registerDevice("ward-7-phone-1")
            #expect(try await test.server.markOverdueDevices() == 0, "not yet")
            test.clock.advance(by: 6 * 3600)
            let onTime = try await test.registerDevice("ward-7-phone-2")
            test.clock.advance(by: 7 * 3600 + 1)
            #expect(try await test.server.markOverdueDevices() == 1, "only the device registered 13 h ago")
            #expect(try await test.server.markOverdueDevices() == 0, "once")

            let device = try await test.request(.GET, "/api/v1/devices/\(late.id)", key: test.adminKey).json
            #expect(device["status"] as? String == "handing_over", "the server started a run: \(device)")
            let history = try await test.request(.GET, "/api/v1/devices/\(late.id)/history", key: test.adminKey).array
            #expect(history.map { $0["event"] as? String ?? "" } == ["run_started", "alert_raised", "overdue"], "\(history)")
            #expect((history.last?["reason"] as? String)?.contains("lending period 13 h") == true && history.first?["actor"] as? String == "server")
            #expect(try await test.request(.GET, "/api/v1/devices/\(onTime.id)", key: test.adminKey).json["status"] as? String == "in_service")

            // Nobody holds the phone: the run's deadline passes and the device leaves service.
            test.clock.advance(by: 6)
            try await test.server.fireDeadlines()
            #expect(try await test.request(.GET, "/api/v1/devices/\(late.id)", key: test.adminKey).json["status"] as? String == "out_of_service")
            #expect(try await test.server.deliverWebhooks() == 2)
            #expect(receiver.deliveries.map(\.event).sorted() == ["device.out_of_service", "device.overdue"])
            try await receiver.stop()
        }
    }

    @Test func withoutAppsToLogOutTheDeviceStaysOverdueInTheQueue() async throws {
        try await TestServer.with(.sqlite, configure: { $0.overdueAfter = 3600 }) { test in
            let device = try await test.registerDevice("cart-3")
            test.clock.advance(by: 3601)
            #expect(try await test.server.markOverdueDevices() == 1)
            let view = try await test.request(.GET, "/api/v1/devices/\(device.id)", key: test.adminKey).json
            #expect(view["status"] as? String == "overdue" && (view["statusReason"] as? String)?.contains("since it was registered") == true, "\(view)")
            let browser = DashboardBrowser(test)
            _ = try await browser.signIn(key: test.adminKey)
            #expect(try await browser.get("/dashboard").text.contains("Needs attention (1)"))
            let back = try await test.request(.POST, "/api/v1/devices/\(device.id)/back-in-service", json: ["note": "found in the drawer"], key: test.adminKey)
            #expect(back.json["status"] as? String == "in_service")
            test.clock.advance(by: 1800)
            #expect(try await test.server.markOverdueDevices() == 0, "its clock started again when it went back in service")
        }
    }

    @Test func theLimitIsReadAsADuration() throws {
        #expect(try ServerConfiguration.parseOverdueAfter("13h", setting: "x") == 46_800)
        #expect(try ServerConfiguration.parseOverdueAfter("90m", setting: "x") == 5400)
        #expect(try ServerConfiguration.parseOverdueAfter("3600", setting: "x") == 3600)
        for bad in ["", "0", "59s", "31d", "soon", "-1h", "nan"] {
            #expect(throws: ConfigurationError.self, "'\(bad)'") { try ServerConfiguration.parseOverdueAfter(bad, setting: "HANDOVER_OVERDUE_AFTER") }
        }
    }
}
