import Foundation
import HandoverConfiguration
import HandoverCore
import HandoverServer
import Testing

/// A device that needs a person alerts its site's contacts by email and webhook, once per device
/// and cause, with a link to its page, where an operator acknowledges it (issue 66, item 8).
@Suite("Device alerts", .serialized, .timeLimit(.minutes(5)), .stopsTestServers)
struct DeviceAlertTests {
    static func mails(in folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".eml") }.sorted()
            .map { String(decoding: try Data(contentsOf: folder.appendingPathComponent($0)), as: UTF8.self) }
    }

    /// The "Done when" line: an overdue device produces exactly one alert, in the mail drop and at
    /// the webhook, however many passes run while it stays overdue; acknowledged from the dashboard.
    @Test(arguments: TestDatabase.available) func anOverdueDeviceAlertsItsSiteOnceByMailAndWebhook(database: TestDatabase) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("handover-alerts-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var alerts = AlertSettings()
        try ServerConfiguration.parseAlertContacts("it@hospital.example,ICU=icu-charge@hospital.example", setting: "test", into: &alerts)
        try await TestServer.with(database, configure: { [alerts] configuration in
            configuration.overdueAfter = 13 * 3600
            configuration.mailDropDirectory = folder
            configuration.alerts = alerts
        }) { test in
            let receiver = try await WebhookReceiver.start()
            _ = try await test.request(.POST, "/api/v1/webhooks", json: ["url": receiver.url, "events": ["device.alert"]], key: test.adminKey)
            _ = try await test.registerTarget("Mail", deadline: 5, maxReissues: 0)
            let late = try await test.registerDevice("ICU-07", site: "ICU")
            let lateID = late.id.lowercased()
            _ = try await test.registerDevice("W7-01", site: "Ward 7")
            test.clock.advance(by: 6 * 3600)
            #expect(try await test.server.passAlerts() == 0, "nothing is overdue yet")
            let onTime = try await test.registerDevice("ICU-08", site: "ICU")
            test.clock.advance(by: 7 * 3600 + 1)
            #expect(try await test.server.markOverdueDevices() == 2, "ICU-07 and W7-01")
            _ = onTime

            // Passes go on while the device stays out of service: still one alert each.
            for _ in 0..<3 {
                _ = try await test.server.passAlerts()
                _ = try await test.server.markOverdueDevices()
                test.clock.advance(by: 6)
                try await test.server.fireDeadlines()
            }
            #expect(try await test.server.deliverWebhooks() == 2)
            let mails = try Self.mails(in: folder)
            let icu = mails.filter { $0.contains("ICU-07") }
            #expect(icu.count == 2, "one to ICU's contact, one to every site's: \(mails.map { $0.prefix(200) })")
            #expect(icu.contains { $0.contains("To: <icu-charge@hospital.example>") } && icu.contains { $0.contains("To: <it@hospital.example>") })
            #expect(mails.filter { $0.contains("W7-01") }.count == 1, "Ward 7 has no contact of its own: every site's only")
            let mail = try #require(icu.first)
            #expect(mail.contains("Subject: Overdue: ICU-07 (ICU)"))
            #expect(mail.replacingOccurrences(of: "=\r\n", with: "").contains("/dashboard/devices/\(lateID)"), "a link to its page")

            let alerts = receiver.deliveries.filter { $0.event == "device.alert" }
            #expect(alerts.count == 2)
            let payload = try #require(alerts.compactMap { try? JSONSerialization.jsonObject(with: $0.body) as? [String: Any] }
                .first { $0["deviceID"] as? String == late.id })
            let alert = try #require(payload["alert"] as? [String: Any])
            #expect(alert["cause"] as? String == "overdue" && alert["site"] as? String == "ICU" && alert["deviceName"] as? String == "ICU-07")
            #expect((alert["page"] as? String)?.hasSuffix("/dashboard/devices/\(lateID)") == true, "\(alert) \(late.id)")
            let alertID = try #require(alert["id"] as? String)

            // A viewer sees it and is offered no button; an admin acknowledges it.
            let viewerKey = try await test.server.createAPIKey(name: "ward screen", scope: .viewer)
            let viewer = DashboardBrowser(test)
            _ = try await viewer.signIn(key: viewerKey)
            let seen = try await viewer.get("/dashboard/alerts")
            #expect(seen.text.contains("ICU-07") && !seen.text.contains("Acknowledge</button>"))
            let refused = try await viewer.post("/dashboard/alerts/\(alertID)/acknowledge", [("csrf", DashboardBrowser.csrf(in: seen.text) ?? "")])
            #expect(refused.status == 403)

            let admin = DashboardBrowser(test)
            let csrf = try await admin.signIn(key: test.adminKey)
            let page = try await admin.get("/dashboard/alerts")
            #expect(page.text.contains("Alerts (2 to acknowledge)") && page.text.contains("Acknowledge</button>"))
            #expect(try await admin.post("/dashboard/alerts/\(alertID)/acknowledge", [("csrf", "wrong")]).status == 403)
            let done = try await admin.post("/dashboard/alerts/\(alertID)/acknowledge?back=device", [("csrf", csrf)])
            #expect(done.status == 303 && done.headers.first(name: "Location") == "/dashboard/devices/\(lateID)", "\(done.headers)")
            let devicePage = try await admin.get("/dashboard/devices/\(lateID)")
            #expect(devicePage.text.contains("test admin"), "who acknowledged it")
            let history = try await test.request(.GET, "/api/v1/devices/\(late.id)/history", key: test.adminKey).array
            #expect(history.map { $0["event"] as? String ?? "" }.filter { $0.hasPrefix("alert_") } == ["alert_acknowledged", "alert_raised"])
            #expect(try await admin.get("/dashboard/alerts").text.contains("Alerts (1 to acknowledge)"))

            // Back in service: the alert is over, and a later overdue is a new episode.
            _ = try await test.request(.POST, "/api/v1/devices/\(late.id)/back-in-service", json: ["note": "found on the charger"], key: test.adminKey)
            _ = try await test.server.passAlerts()
            #expect(try await admin.get("/dashboard/alerts").text.contains("over "))
            test.clock.advance(by: 13 * 3600 + 1)
            _ = try await test.server.markOverdueDevices()
            _ = try await test.server.passAlerts()
            #expect(try Self.mails(in: folder).filter { $0.contains("ICU-07") }.count == 4, "the second episode is mailed again")
            try await receiver.stop()
        }
    }

    @Test func aDeviceNotSeenAlertsUntilItsKeyIsUsed() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("handover-alerts-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var alerts = AlertSettings(notSeenAfter: 3 * 86_400)
        try ServerConfiguration.parseAlertContacts("it@hospital.example", setting: "test", into: &alerts)
        try await TestServer.with(.sqlite, configure: { [alerts] configuration in
            configuration.mailDropDirectory = folder
            configuration.alerts = alerts
        }) { test in
            let device = try await test.registerDevice("cart-3", site: "ICU")
            test.clock.advance(by: 2 * 86_400)
            #expect(try await test.server.passAlerts() == 0)
            test.clock.advance(by: 86_400 + 1)
            #expect(try await test.server.passAlerts() == 1)
            #expect(try await test.server.passAlerts() == 0, "once")
            let mail = try #require(try Self.mails(in: folder).first)
            #expect(mail.contains("Subject: Not seen: cart-3 (ICU)") && mail.contains("alerted after 72 h"), "\(mail)")
            // The device's key is used: the alert is over.
            // The launcher starts a hand-over with the device's key: the device is seen.
            _ = try await test.registerTarget("Mail")
            let used = try await test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", json: [:], key: device.key)
            #expect(used.status == 201, "\(used.text)")
            try await test.server.flushKeyUses()
            _ = try await test.server.passAlerts()
            let admin = DashboardBrowser(test)
            _ = try await admin.signIn(key: test.adminKey)
            #expect(try await admin.get("/dashboard/alerts").text.contains("Alerts (0 to acknowledge)"))
        }
    }

    /// Lost Mode, as Jamf Pro's loopback peer accepts it after a failed hand-over: one alert, over
    /// once the device is back in service (and Lost Mode lifted).
    @Test func aDeviceTheMDMPutInLostModeAlertsOnce() async throws {
        guard MDMVendorPeer.isAvailable() else { return }
        let peer = try await MDMVendorPeer(.jamf, devices: [MDMRemediationTests.serial: "17"])
        defer { peer.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("handover-alerts-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var alerts = AlertSettings()
        try ServerConfiguration.parseAlertContacts("it@hospital.example", setting: "test", into: &alerts)
        try await TestServer.with(.sqlite, configure: { [alerts] configuration in
            configuration.mdm = MDMRemediationTests.configuration(peer, action: .lostMode)
            configuration.mailDropDirectory = folder
            configuration.alerts = alerts
        }) { test in
            let device = try await MDMRemediationTests.failARun(test, name: "ward-7-phone-1", serial: MDMRemediationTests.serial)
            #expect(try await test.server.passAlerts() == 0, "out of service, but the MDM has not put it in Lost Mode yet")
            #expect(try await test.server.deliverMDMCommands() == 1)
            #expect(try await test.server.passAlerts() == 1)
            #expect(try await test.server.passAlerts() == 0, "once")
            let mail = try #require(try Self.mails(in: folder).first)
            #expect(mail.contains("Subject: In Lost Mode: ward-7-phone-1"), "\(mail)")
            _ = try await test.request(.POST, "/api/v1/devices/\(device)/back-in-service", json: ["note": "found"], key: test.adminKey)
            _ = try await test.server.passAlerts()
            let admin = DashboardBrowser(test)
            _ = try await admin.signIn(key: test.adminKey)
            let page = try await admin.get("/dashboard/alerts")
            #expect(page.text.contains("Alerts (0 to acknowledge)") && page.text.contains("over "), "over once it is back in service")
        }
    }

    @Test func contactsWithoutAMailTransportAreRefusedAtStart() async throws {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.databaseURL = nil
        try ServerConfiguration.parseAlertContacts("it@hospital.example", setting: "HANDOVER_ALERT_CONTACTS", into: &configuration.alerts)
        do {
            _ = try await TestServer.start(.sqlite) { $0.alerts = configuration.alerts }
            Issue.record("a server started with contacts it cannot mail")
        } catch {
            #expect("\(error)".contains("HANDOVER_ALERT_CONTACTS") && "\(error)".contains("no mail transport"), "\(error)")
        }
        for bad in ["ICU=", "ICU=nobody", "3"] {
            var settings = AlertSettings()
            #expect(throws: ConfigurationError.self, "\(bad)") { try ServerConfiguration.parseAlertContacts(bad, setting: "x", into: &settings) }
        }
        #expect(try ServerConfiguration.parseNotSeenAfter("3d", setting: "x") == 259_200)
        for bad in ["", "30m", "91d", "soon", "3"] {
            #expect(throws: ConfigurationError.self, "\(bad)") { try ServerConfiguration.parseNotSeenAfter(bad, setting: "x") }
        }
    }
}
