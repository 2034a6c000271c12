import Foundation
import HandoverCore
import HandoverProtocol
import HandoverServer
import Testing

/// MDM follow-through (issue 40, item 8), against the loopback Jamf Pro and Graph that follow the
/// vendors' references (Tests/Peers/mdm_vendor.py cites the pages): back in service lifts the
/// Lost Mode Handover put on the device, and Apple's Return to Service is a remediation for Jamf
/// Pro that waits for its confirmation like an erase.
@Suite("MDM follow-through", .serialized, .timeLimit(.minutes(5)), .stopsTestServers)
struct MDMFollowThroughTests {
    /// A Wi-Fi configuration profile, as Apple Configurator writes one (shortened).
    static let wifiProfile = Data("""
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0"><dict><key>PayloadContent</key><array><dict><key>PayloadType</key><string>com.apple.wifi.managed</string>
        <key>SSID_STR</key><string>Ward-Devices</string><key>EncryptionType</key><string>WPA2</key><key>Password</key><string>s3cret-wifi</string>
        </dict></array><key>PayloadType</key><string>Configuration</string></dict></plist>
        """.utf8)

    @Test(arguments: MDMVendorPeer.Vendor.allCases)
    func backInServiceLiftsTheLostModeHandoverPutOnTheDevice(vendor: MDMVendorPeer.Vendor) async throws {
        guard await MDMVendorPeer.isAvailable() else { return }
        let peer = try await MDMVendorPeer(vendor, devices: [MDMRemediationTests.serial: MDMRemediationTests.deviceID(for: vendor)])
        defer { peer.stop() }
        try await TestServer.with(.sqlite, configure: { $0.mdm = MDMRemediationTests.configuration(peer, action: .lostMode) }) { test in
            let device = try await MDMRemediationTests.failARun(test, name: "ward-7-phone-1", serial: MDMRemediationTests.serial)
            #expect(try await test.server.deliverMDMCommands() == 1, "Lost Mode")
            try await MDMAfterBackInServiceTests.backInService(test, device)
            #expect(try await test.server.deliverMDMCommands() == 1, "its lifting")
            let commands = try await peer.commands()
            #expect(commands.count == 2)
            let lift = try #require(commands.last)
            switch vendor {
            case .jamf:
                let managementID = try await MDMVendorPeer.jamfManagementID("17")
                #expect(lift.path == "/api/v2/mdm/commands")
                #expect(lift.body.contains(#""commandType":"DISABLE_LOST_MODE""#)
                        && lift.body.contains(#""managementId":"\#(managementID)""#), "\(lift.body)")
            case .intune:
                #expect(lift.path == "/beta/deviceManagement/managedDevices/\(MDMRemediationTests.deviceID(for: vendor))/disableLostMode")
                #expect(lift.body.isEmpty, "\(lift.body)")
            }
            let history = try await MDMRemediationTests.history(test, device)
            #expect(history.contains { ($0["reason"] as? String)?.contains("disable lost mode by \(vendor.rawValue)") == true }, "\(history)")
            #expect(history.first?["event"] as? String == "mdm_command_sent", "\(history.first ?? [:])")

            // Out of service and back again with no Lost Mode sent since: nothing more to lift.
            let again = try await test.request(.POST, "/api/v1/devices/\(device)/back-in-service", json: ["note": "fine"], key: test.adminKey)
            #expect(again.status == 409, "already in service: \(again.text)")
            test.clock.advance(by: 3600)
            #expect(try await test.server.deliverMDMCommands() == 0)
            #expect(try await peer.commands().count == 2)
        }
    }

    @Test func aLiftIsNotSentToADeviceThatWentOutOfServiceAgain() async throws {
        guard await MDMVendorPeer.isAvailable() else { return }
        let peer = try await MDMVendorPeer(.jamf, devices: [MDMRemediationTests.serial: "17"])
        defer { peer.stop() }
        try await TestServer.with(.sqlite, configure: { $0.mdm = MDMRemediationTests.configuration(peer, action: .lostMode) }) { test in
            let app = try await test.registerTarget("Mail", deadline: 5, maxReissues: 0)
            let created = try await test.request(.POST, "/api/v1/devices", json: ["name": "ward-7-phone-1", "serialNumber": MDMRemediationTests.serial],
                                                 key: test.adminKey)
            let device = try #require((created.json["device"] as? [String: Any])?["id"] as? String)
            let key = try #require(created.json["key"] as? String)
            func failARun() async throws {
                let run = try await test.request(.POST, "/api/v1/devices/\(device)/logout-runs", json: ["apps": [app]], key: key)
                #expect(run.status == 201, "\(run.text)")
                test.clock.advance(by: 6)
                try await test.server.fireDeadlines()
            }
            try await failARun()
            #expect(try await test.server.deliverMDMCommands() == 1, "Lost Mode")
            try await peer.control(failNext: [503])
            try await MDMAfterBackInServiceTests.backInService(test, device)
            #expect(try await test.server.deliverMDMCommands() == 1, "the lift's first attempt meets a 503")
            // Before its retry the device fails a hand-over again: it stays in Lost Mode.
            try await failARun()
            test.clock.advance(by: 10)
            _ = try await test.server.deliverMDMCommands()
            let lifts = try await peer.commands().filter { $0.body.contains("DISABLE_LOST_MODE") }
            #expect(lifts.count == 1, "only the attempt that met the 503: \(lifts.map(\.body))")
            let history = try await MDMRemediationTests.history(test, device)
            #expect(history.contains { ($0["reason"] as? String)?.contains("stays in Lost Mode") == true }, "\(history)")
        }
    }

    @Test func returnToServiceWaitsForItsConfirmationThenErasesWithTheWiFiProfile() async throws {
        guard await MDMVendorPeer.isAvailable() else { return }
        let peer = try await MDMVendorPeer(.jamf, devices: [MDMRemediationTests.serial: "17"])
        defer { peer.stop() }
        var configuration = MDMRemediationTests.configuration(peer, action: .returnToService)
        configuration.returnToServiceWiFiProfile = Self.wifiProfile
        try await TestServer.with(.sqlite, configure: { $0.mdm = configuration }) { test in
            let device = try await MDMRemediationTests.failARun(test, name: "ward-7-phone-1", serial: MDMRemediationTests.serial)
            #expect(try await test.server.deliverMDMCommands() == 0, "nothing before a person confirms")
            let browser = DashboardBrowser(test)
            let csrf = try await browser.signIn(key: test.adminKey)
            let page = try await browser.get("/dashboard/devices/\(device)")
            #expect(page.text.contains("Erase this device and return it to service?") && page.text.contains("joins the configured Wi-Fi"), "\(page.text)")
            let command = try #require(page.text.components(separatedBy: "/mdm-commands/").dropFirst().first?.components(separatedBy: "/").first)
            let confirmed = try await browser.post("/dashboard/devices/\(device)/mdm-commands/\(command)/confirm-erase",
                                                   [("csrf", csrf), ("confirm", "ward-7-phone-1")])
            #expect(confirmed.status == 303, "\(confirmed.status) \(confirmed.text.prefix(300))")
            #expect(try await test.server.deliverMDMCommands() == 1)
            let sent = try #require(try await peer.commands().first)
            let body = try #require(try JSONSerialization.jsonObject(with: Data(sent.body.utf8)) as? [String: Any])
            let data = try #require(body["commandData"] as? [String: Any])
            let service = try #require(data["returnToService"] as? [String: Any])
            #expect(data["commandType"] as? String == "ERASE_DEVICE" && service["enabled"] as? Bool == true, "\(data)")
            #expect((service["wifiProfileData"] as? String).flatMap { Data(base64Encoded: $0) } == Self.wifiProfile)
            #expect(service["mdmProfileData"] == nil, "only for a device not enrolled through Automated Device Enrollment")
            let history = try await MDMRemediationTests.history(test, device)
            #expect(history.contains { ($0["reason"] as? String)?.contains("erase with Return to Service by jamf confirmed") == true }, "\(history)")
            #expect(history.first?["event"] as? String == "mdm_command_sent")
        }
    }

    @Test func aDryRunOfReturnToServiceRecordsTheCommandWithoutTheProfile() async throws {
        guard await MDMVendorPeer.isAvailable() else { return }
        let peer = try await MDMVendorPeer(.jamf, devices: [MDMRemediationTests.serial: "17"])
        defer { peer.stop() }
        var configuration = MDMRemediationTests.configuration(peer, action: .returnToService, dryRun: true)
        configuration.returnToServiceWiFiProfile = Self.wifiProfile
        try await TestServer.with(.sqlite, configure: { $0.mdm = configuration }) { test in
            let device = try await MDMRemediationTests.failARun(test, name: "ward-7-phone-1", serial: MDMRemediationTests.serial)
            let browser = DashboardBrowser(test)
            let csrf = try await browser.signIn(key: test.adminKey)
            let page = try await browser.get("/dashboard/devices/\(device)")
            let command = try #require(page.text.components(separatedBy: "/mdm-commands/").dropFirst().first?.components(separatedBy: "/").first)
            _ = try await browser.post("/dashboard/devices/\(device)/mdm-commands/\(command)/confirm-erase", [("csrf", csrf), ("confirm", "ward-7-phone-1")])
            #expect(try await test.server.deliverMDMCommands() == 1)
            #expect(try await peer.commands().isEmpty, "a dry run sends nothing")
            let history = try await MDMRemediationTests.history(test, device)
            let recorded = try #require(history.first { $0["event"] as? String == "mdm_command_sent" }?["reason"] as? String)
            #expect(recorded.contains("dry run: would send POST") && recorded.contains("ERASE_DEVICE") && recorded.contains("returnToService")
                    && recorded.contains("-byte profile>"), "\(recorded)")
            #expect(!recorded.contains(Self.wifiProfile.base64EncodedString().prefix(40)), "the Wi-Fi profile (and its password) is not recorded")
        }
    }

    @Test func returnToServiceIsRefusedForIntuneAndNeedsTheWiFiProfileForJamf() throws {
        let intune = ["HANDOVER_MDM": "intune", "HANDOVER_MDM_TENANT": "contoso", "HANDOVER_MDM_CLIENT_ID": "id", "HANDOVER_MDM_CLIENT_SECRET": "s",
                      "HANDOVER_MDM_ACTION": "return_to_service"]
        #expect { try MDMConfiguration.fromEnvironment(intune) } throws: { error in
            (error as? ConfigurationError)?.description.contains("Jamf Pro only") == true
        }
        var jamf = ["HANDOVER_MDM": "jamf", "HANDOVER_MDM_URL": "https://ward.jamfcloud.com", "HANDOVER_MDM_CLIENT_ID": "id",
                    "HANDOVER_MDM_CLIENT_SECRET": "s", "HANDOVER_MDM_ACTION": "return_to_service"]
        #expect { try MDMConfiguration.fromEnvironment(jamf) } throws: { error in
            (error as? ConfigurationError)?.description.contains("HANDOVER_MDM_RTS_WIFI_PROFILE") == true
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let notAProfile = folder.appendingPathComponent("notes.txt")
        try Data("Ward-Devices / s3cret".utf8).write(to: notAProfile)
        jamf["HANDOVER_MDM_RTS_WIFI_PROFILE"] = notAProfile.path
        #expect { try MDMConfiguration.fromEnvironment(jamf) } throws: { error in
            (error as? ConfigurationError)?.description.contains("not a configuration profile") == true
        }
        let profile = folder.appendingPathComponent("wifi.mobileconfig")
        try Self.wifiProfile.write(to: profile)
        jamf["HANDOVER_MDM_RTS_WIFI_PROFILE"] = profile.path
        let configuration = try #require(try MDMConfiguration.fromEnvironment(jamf))
        #expect(configuration.action == .returnToService && configuration.returnToServiceWiFiProfile == Self.wifiProfile)
        jamf["HANDOVER_MDM_ACTION"] = "disable_lost_mode"
        #expect { try MDMConfiguration.fromEnvironment(jamf) } throws: { error in
            (error as? ConfigurationError)?.description.contains("lifts the Lost Mode") == true
        }
    }
}
