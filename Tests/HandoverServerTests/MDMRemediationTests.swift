import Foundation
import HandoverProtocol
import HandoverServer
import Testing

/// When a device goes out of service, the fleet's MDM is asked to act, through a durable outbox,
/// against loopback servers that speak Jamf Pro's and Microsoft Graph's documented APIs.
@Suite("MDM remediation", .serialized, .timeLimit(.minutes(5)), .stopsTestServers)
struct MDMRemediationTests {
    static let serial = "C02XK1ABJG5H"

    static func deviceID(for vendor: MDMVendorPeer.Vendor) -> String {
        vendor == .jamf ? "17" : "4b5c6d7e-0000-4aaa-8bbb-1234567890ab"
    }

    static func configuration(_ peer: MDMVendorPeer, action: MDMAction, dryRun: Bool = false) -> MDMConfiguration {
        let base = URL(string: peer.url)!
        let connector: MDMConfiguration.Connector = peer.vendor == .jamf
            ? .jamf(baseURL: base, clientID: MDMVendorPeer.clientID, clientSecret: MDMVendorPeer.clientSecret)
            : .intune(tenantID: "contoso-tenant", clientID: MDMVendorPeer.clientID, clientSecret: MDMVendorPeer.clientSecret,
                      loginBaseURL: base, graphBaseURL: base)
        var configuration = MDMConfiguration(connector: connector, action: action, message: "Return to the ward 7 desk",
                                             phoneNumber: "+44 20 7946 0000", footnote: "St Elsewhere IT", dryRun: dryRun)
        configuration.maxAttempts = 3
        return configuration
    }

    /// Registers a device with `serial` and lets its run fail (a 5 s deadline, no answer).
    static func failARun(_ test: TestServer, name: String, serial: String) async throws -> String {
        let app = try await test.registerTarget("Mail\(name)", deadline: 5, maxReissues: 0)
        let created = try await test.request(.POST, "/api/v1/devices", json: ["name": name, "serialNumber": serial], key: test.adminKey)
        let device = try #require(created.json["device"] as? [String: Any])
        let id = try #require(device["id"] as? String)
        let key = try #require(created.json["key"] as? String)
        let run = try await test.request(.POST, "/api/v1/devices/\(id)/logout-runs", json: ["apps": [app]], key: key)
        #expect(run.status == 201, "\(run.text)")
        test.clock.advance(by: 6)
        try await test.server.fireDeadlines()
        return id
    }

    static func history(_ test: TestServer, _ device: String) async throws -> [[String: Any]] {
        try await test.request(.GET, "/api/v1/devices/\(device)/history", key: test.adminKey).array
    }

    @Test(arguments: MDMVendorPeer.Vendor.allCases)
    func aFailedRunSendsThePolicysCommandToTheRightDeviceAndRenewsAnExpiredTokenOnce(vendor: MDMVendorPeer.Vendor) async throws {
        guard await MDMVendorPeer.isAvailable() else { return }
        let peer = try await MDMVendorPeer(vendor, devices: [Self.serial: Self.deviceID(for: vendor), "C02SECOND001": Self.deviceID(for: vendor) + "2"])
        defer { peer.stop() }
        try await TestServer.with(.sqlite, configure: { $0.mdm = Self.configuration(peer, action: .lostMode) }) { test in
            let device = try await Self.failARun(test, name: "ward-7-phone-1", serial: Self.serial)
            #expect(try await test.server.deliverMDMCommands() == 1)
            #expect(try await test.server.deliverMDMCommands() == 0, "sent once")
            let log = try await peer.log()
            #expect(log.tokens_issued == 1)
            let lookup = try #require(log.requests.first { $0.method == "GET" })
            #expect(lookup.query.contains(Self.serial), "the device is looked up by its serial number: \(lookup.query)")
            let command = try #require(try await peer.commands().first)
            switch vendor {
            case .jamf:
                let managementID = try await MDMVendorPeer.jamfManagementID("17")
                #expect(command.path == "/api/v2/mdm/commands")
                #expect(command.body.contains(#""managementId":"\#(managementID)""#), "\(command.body)")
                #expect(command.body.contains(#""commandType":"ENABLE_LOST_MODE""#) && command.body.contains(#""lostModeMessage":"Return to the ward 7 desk""#))
                #expect(command.body.contains(#""lostModePhone":"+44 20 7946 0000""#) && command.body.contains(#""lostModeFootnote":"St Elsewhere IT""#))
            case .intune:
                #expect(command.path == "/beta/deviceManagement/managedDevices/\(Self.deviceID(for: vendor))/enableLostMode")
                #expect(command.body == #"{"footer":"St Elsewhere IT","message":"Return to the ward 7 desk","phoneNumber":"+44 20 7946 0000"}"#)
            }
            let events = try await Self.history(test, device).map { $0["event"] as? String ?? "" }
            #expect(events.prefix(2) == ["mdm_command_sent", "mdm_command_queued"], "\(events)")

            // The vendor expires its tokens: the next command renews the token once, then goes through.
            try await peer.control(expireTokens: true)
            _ = try await Self.failARun(test, name: "ward-7-phone-2", serial: "C02SECOND001")
            #expect(try await test.server.deliverMDMCommands() == 1)
            let after = try await peer.log()
            #expect(after.tokens_issued == 2, "renewed once")
            #expect(try await peer.commands().count == 2)
        }
    }

    @Test(arguments: MDMVendorPeer.Vendor.allCases)
    func a429WaitsForRetryAfterAndA5xxIsRetriedThenShownAsFailing(vendor: MDMVendorPeer.Vendor) async throws {
        guard await MDMVendorPeer.isAvailable() else { return }
        let peer = try await MDMVendorPeer(vendor, devices: [Self.serial: Self.deviceID(for: vendor), "C02SECOND001": Self.deviceID(for: vendor) + "2"])
        defer { peer.stop() }
        try await TestServer.with(.sqlite, configure: { $0.mdm = Self.configuration(peer, action: .lock) }) { test in
            try await peer.control(failNext: [429])
            let device = try await Self.failARun(test, name: "ward-7-phone-1", serial: Self.serial)
            #expect(try await test.server.deliverMDMCommands() == 1)
            #expect(try await peer.commands().count == 1, "answered 429")
            test.clock.advance(by: 1)
            #expect(try await test.server.deliverMDMCommands() == 0, "Retry-After: 2 is not over")
            test.clock.advance(by: 1.5)
            #expect(try await test.server.deliverMDMCommands() == 1)
            #expect(try await peer.commands().count == 2)
            #expect(try await Self.history(test, device).first?["event"] as? String == "mdm_command_sent")

            try await peer.control(failNext: [503, 503, 503])
            let second = try await Self.failARun(test, name: "ward-7-phone-2", serial: "C02SECOND001")
            #expect(try await test.server.deliverMDMCommands() == 1)
            let browser = DashboardBrowser(test)
            _ = try await browser.signIn(key: test.adminKey)
            let failing = try await browser.get("/dashboard/devices/\(second)")
            #expect(failing.text.contains("failing") && failing.text.contains("HTTP 503"), "\(failing.text)")
            for wait in [2.0, 4.0] {
                test.clock.advance(by: wait + 0.1)
                #expect(try await test.server.deliverMDMCommands() == 1, "retried with back-off")
            }
            test.clock.advance(by: 3600)
            #expect(try await test.server.deliverMDMCommands() == 0, "given up after 3 attempts")
            _ = try await browser.signIn(key: test.adminKey)  // an hour idle ended the dashboard session
            let failed = try await browser.get("/dashboard/devices/\(second)")
            #expect(failed.text.contains(">failed<") && failed.text.contains("after 3 attempts"), "\(failed.text)")
            #expect(try await Self.history(test, second).first?["event"] as? String == "mdm_command_failed")
        }
    }

    @Test func anEraseWaitsForAPersonToTypeTheDevicesName() async throws {
        guard await MDMVendorPeer.isAvailable() else { return }
        let peer = try await MDMVendorPeer(.jamf, devices: [Self.serial: "17"])
        defer { peer.stop() }
        try await TestServer.with(.sqlite, configure: { $0.mdm = Self.configuration(peer, action: .erase) }) { test in
            let device = try await Self.failARun(test, name: "ward-7-phone-1", serial: Self.serial)
            #expect(try await test.server.deliverMDMCommands() == 0, "nothing is erased before a person confirms")
            let browser = DashboardBrowser(test)
            let csrf = try await browser.signIn(key: test.adminKey)
            let page = try await browser.get("/dashboard/devices/\(device)")
            #expect(page.text.contains("Erase this device"), "\(page.text)")
            let command = try #require(page.text.components(separatedBy: "/mdm-commands/").dropFirst().first?.components(separatedBy: "/").first)
            let path = "/dashboard/devices/\(device)/mdm-commands/\(command)/confirm-erase"
            let wrong = try await browser.post(path, [("csrf", csrf), ("confirm", "ward-7-phone-2")])
            #expect(wrong.status == 422 && wrong.text.contains("type the device&#39;s name") || wrong.text.contains("type the device's name"), "\(wrong.text)")
            #expect(try await test.server.deliverMDMCommands() == 0)
            let confirmed = try await browser.post(path, [("csrf", csrf), ("confirm", "ward-7-phone-1")])
            #expect(confirmed.status == 303, "\(confirmed.text)")
            #expect(try await test.server.deliverMDMCommands() == 1)
            #expect(try await peer.commands().first?.body.contains(#""commandType":"ERASE_DEVICE""#) == true)
            let history = try await Self.history(test, device)
            let confirmation = try #require(history.first { $0["event"] as? String == "erase_confirmed" })
            #expect((confirmation["actor"] as? String)?.contains("on the dashboard") == true)
            let again = try await browser.post(path, [("csrf", csrf), ("confirm", "ward-7-phone-1")])
            #expect(again.status == 409)
        }
    }

    @Test func aDryRunRecordsWhatWouldBeSentAndSendsNothing() async throws {
        guard await MDMVendorPeer.isAvailable() else { return }
        let peer = try await MDMVendorPeer(.intune, devices: [Self.serial: "abc"])
        defer { peer.stop() }
        try await TestServer.with(.sqlite, configure: { $0.mdm = Self.configuration(peer, action: .lock, dryRun: true) }) { test in
            let device = try await Self.failARun(test, name: "ward-7-phone-1", serial: Self.serial)
            #expect(try await test.server.deliverMDMCommands() == 1)
            #expect(try await peer.log().requests.isEmpty, "nothing reached the MDM")
            let sent = try #require(try await Self.history(test, device).first)
            #expect((sent["reason"] as? String)?.hasPrefix("dry run: would send POST \(peer.url)/v1.0/deviceManagement/managedDevices/<id of serial \(Self.serial)>/remoteLock") == true,
                    "\(sent)")
        }
    }

    @Test func aDeviceTheMDMDoesNotKnowFailsAtOnce() async throws {
        guard await MDMVendorPeer.isAvailable() else { return }
        let peer = try await MDMVendorPeer(.jamf, devices: [:])
        defer { peer.stop() }
        try await TestServer.with(.sqlite, configure: { $0.mdm = Self.configuration(peer, action: .lock) }) { test in
            let device = try await Self.failARun(test, name: "ward-7-phone-1", serial: Self.serial)
            #expect(try await test.server.deliverMDMCommands() == 1)
            let failed = try #require(try await Self.history(test, device).first)
            #expect(failed["event"] as? String == "mdm_command_failed")
            #expect((failed["reason"] as? String)?.contains("Jamf Pro has no mobile device with serial number \(Self.serial)") == true, "\(failed)")
        }
    }
}
