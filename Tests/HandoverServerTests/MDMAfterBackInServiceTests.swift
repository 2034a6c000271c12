import Foundation
import HandoverProtocol
import HandoverServer
import Testing

/// A device back in service owes its MDM nothing (issue 36, findings 3 and 4): every command
/// still owed is cancelled with the step, in the device's history, and the confirmation and the
/// sender check the device's state at their own moment.
@Suite("MDM commands after back in service", .serialized, .timeLimit(.minutes(5)), .stopsTestServers)
struct MDMAfterBackInServiceTests {
    static func backInService(_ test: TestServer, _ device: String) async throws {
        let reply = try await test.request(.POST, "/api/v1/devices/\(device)/back-in-service",
                                           json: ["note": "checked at the ward 7 desk by the charge nurse"], key: test.adminKey)
        #expect(reply.status == 200 && reply.json["status"] as? String == "in_service", "\(reply.text)")
    }

    /// Before: the device page still offered the erase form after back in service, a confirmation
    /// posted then answered 303, and the MDM received `ERASE_DEVICE` for a device in service.
    @Test func anEraseOwedIsCancelledByBackInServiceAndCanNoLongerBeConfirmed() async throws {
        guard await MDMVendorPeer.isAvailable() else { return }
        let peer = try await MDMVendorPeer(.jamf, devices: [MDMRemediationTests.serial: "17"])
        defer { peer.stop() }
        try await TestServer.with(.sqlite, configure: { $0.mdm = MDMRemediationTests.configuration(peer, action: .erase) }) { test in
            let device = try await MDMRemediationTests.failARun(test, name: "ward-7-phone-1", serial: MDMRemediationTests.serial)
            let browser = DashboardBrowser(test)
            let csrf = try await browser.signIn(key: test.adminKey)
            let page = try await browser.get("/dashboard/devices/\(device)")
            #expect(page.text.contains("Erase this device"), "\(page.text)")
            let command = try #require(page.text.components(separatedBy: "/mdm-commands/").dropFirst().first?.components(separatedBy: "/").first)

            try await Self.backInService(test, device)
            let after = try await browser.get("/dashboard/devices/\(device)")
            #expect(!after.text.contains("Erase this device"), "no erase is offered for a device in service")
            #expect(after.text.contains("cancelled"), "the command shows as cancelled")
            let confirmed = try await browser.post("/dashboard/devices/\(device)/mdm-commands/\(command)/confirm-erase",
                                                   [("csrf", csrf), ("confirm", "ward-7-phone-1")])
            #expect(confirmed.status == 409, "\(confirmed.status) \(confirmed.text.prefix(300))")
            #expect(try await test.server.deliverMDMCommands() == 0)
            #expect(try await peer.commands().isEmpty, "nothing reached the MDM")
            let history = try await MDMRemediationTests.history(test, device)
            let cancelled = try #require(history.first { $0["event"] as? String == "mdm_command_cancelled" })
            #expect((cancelled["reason"] as? String)?.contains("went back in service") == true, "\(cancelled)")
        }
    }

    /// Before: the MDM answered 503 twice, the device was put back in service, and when the MDM
    /// recovered `DEVICE_LOCK` went out 3 s later.
    @Test(arguments: MDMVendorPeer.Vendor.allCases)
    func aLockOwedIsNotSentAfterBackInService(vendor: MDMVendorPeer.Vendor) async throws {
        guard await MDMVendorPeer.isAvailable() else { return }
        let peer = try await MDMVendorPeer(vendor, devices: [MDMRemediationTests.serial: MDMRemediationTests.deviceID(for: vendor)])
        defer { peer.stop() }
        try await TestServer.with(.sqlite, configure: { $0.mdm = MDMRemediationTests.configuration(peer, action: .lock) }) { test in
            try await peer.control(failNext: [503, 503])
            let device = try await MDMRemediationTests.failARun(test, name: "ward-7-phone-1", serial: MDMRemediationTests.serial)
            #expect(try await test.server.deliverMDMCommands() == 1)
            test.clock.advance(by: 2.1)
            #expect(try await test.server.deliverMDMCommands() == 1)
            #expect(try await peer.commands().count == 2, "two attempts, both 503")

            try await Self.backInService(test, device)
            test.clock.advance(by: 3600)
            #expect(try await test.server.deliverMDMCommands() == 0, "a cancelled command is not due")
            #expect(try await peer.commands().count == 2, "no lock reached the MDM after back in service")
            let events = try await MDMRemediationTests.history(test, device).compactMap { $0["event"] as? String }
            #expect(Set(events.prefix(2)) == ["mdm_command_cancelled", "back_in_service"], "\(events)")
        }
    }
}
