import Foundation
import HandoverClient
import HandoverServer
import LinkCallbacks
import NIOConcurrencyHelpers
import TestPeers
import Testing

/// `docs/launcher.md`'s code, compiled and run against a real server on loopback: a badge checks
/// the phone out, and the hand-over signs every app out and checks the person in (issue 41).
@Suite(.serialized, .timeLimit(.minutes(5)), .stopsTestServers) struct LauncherGuideTests {
    @Test func theGuidesLauncherChecksOutAndHandsOver() async throws {
        guard await PythonPeer.canImport("json", skipping: "the badge directory") else { return }
        let directory = try await PythonPeer.start("badge_directory.py", ["04217733=grace@hospital.example"])
        defer { directory.stop() }
        try await TestServer.with(.sqlite, configure: { $0.badgeLookupURL = URL(string: "http://127.0.0.1:\(directory.port)/lookup") }) { test in
            try await test.registerTarget("Notes")
            try await test.registerTarget("Chart")
            let registered = try await test.registerDevice("ward-7-phone-1")
            let deviceID = try #require(UUID(uuidString: registered.id)), deviceKey = registered.key
            let badge = "04217733"

            // 2. The device's identity (the guide's https URL is this test server's).
            let server = FleetServer(baseURL: test.server.baseURL, deviceID: deviceID, deviceKey: deviceKey)

            // 3. Shift start: check the person out.
            let status = await Self.checkOut(badge: badge, on: server)
            #expect(status == "Checked out to grace@hospital.example")
            #expect(await Self.checkOut(badge: "0000", on: server) == "This badge is not known. Ask the IT desk.")

            // 4. Shift end: hand over (the opener plays the apps, answering each link).
            let opener = ServerBackedLogoutTests.AnsweringOpener()
            let logout = ServerBackedLogout(server: server, opener: opener)
            opener.logout.withLockedValue { $0 = logout }
            let report = try await logout.run()
            #expect(report.entries.map(\.app) == ["Notes", "Chart"] && report.entries.allSatisfy { $0.outcome == .succeeded }, "\(report)")

            // The custody was checked in by that run.
            let custody = try await test.request(.GET, "/api/v1/custody?device=\(registered.id)", key: test.adminKey)
            let record = try #require((custody.json["custodies"] as? [[String: Any]])?.first)
            #expect((record["runID"] as? String)?.lowercased() == report.runID.lowercased() && record["checkedInAt"] != nil, "\(record)")
        }
    }

    /// The guide's dock screen: what it shows after a badge tap.
    static func checkOut(badge: String, on server: FleetServer) async -> String {
        do throws(FleetServerError) {
            let custody = try await server.checkOut(badge: badge)
            return "Checked out to \(custody.personLabel)"
        } catch .rejected(status: 409, error: "already_holds_a_device", reason: let reason) {
            return reason  // names the phone they still hold
        } catch .rejected(status: 404, error: "unknown_badge", reason: _) {
            return "This badge is not known. Ask the IT desk."
        } catch {
            return "Could not check out: \(error.description) Sign in on the phone instead."
        }
    }
}
