import DeviceSimulator
import FluentKit
import Foundation
@testable import HandoverServer
import HandoverConfiguration
import HandoverSchema
import Testing

/// Back-Channel Logout deliveries against backends that answer without end, never answer, or
/// move (issue 36, findings 1, 2 and 5): a backend costs the server a few KB and its own lanes,
/// its address is read when its token is sent, and a run keeps the logout methods it started with.
@Suite("Back-channel outbox hardening", .serialized, .timeLimit(.minutes(5)), .stopsTestServers)
struct BackChannelOutboxHardeningTests {
    /// Registers the rig's app with `uri` as its back-channel logout URI; returns its id.
    static func app(_ rig: AppleRig, uri: String, method: String = "ulc") async throws -> String {
        var fields: [String: Any] = ["name": "Handover", "appIDs": ["ABCDE12345.\(AppleRig.clientID)"], "backchannelLogoutURI": uri,
                                     "logoutMethod": method]
        if method != "backend-only" { fields["logoutAction"] = "https://handover.example.com/logout" }
        let created = try await rig.test.request(.POST, "/api/v1/apps", json: fields, key: rig.test.adminKey)
        #expect(created.status == 201, "\(created.text)")
        return try #require(created.json["id"] as? String)
    }

    /// A device with a user signed in to the app, handed over: returns the run's id and the device's key.
    static func handOver(_ rig: AppleRig, app: String, device name: String) async throws -> (id: String, key: String) {
        let device = try await rig.test.registerDevice(name)
        _ = try await rig.signIn(sub: "user-\(name)", extra: ["deviceID": device.id])
        let run = try await rig.test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", json: ["apps": [app]], key: device.key)
        #expect(run.status == 201, "\(run.text)")
        return (try #require(run.json["id"] as? String), device.key)
    }

    /// The run's first item, as its launcher reads it (the backend's side included).
    static func item(_ rig: AppleRig, run: (id: String, key: String)) async throws -> [String: Any] {
        let view = try await rig.test.request(.GET, "/api/v1/logout-runs/\(run.id)", key: run.key)
        return try #require((view.json["items"] as? [[String: Any]])?.first)
    }

    @Test func aReplyWithoutEndFailsItsAttemptAfterAFewKilobytes() async throws {
        guard await BackendPeers.pythonIsAvailable() else { return }
        let peer = try await HostilePeer()
        defer { peer.stop() }
        let (rig, _) = try await OpenIDConnectTests.rig()
        do {
            let app = try await Self.app(rig, uri: peer.url(.endless, "/bcl"))
            let run = try await Self.handOver(rig, app: app, device: "ward-7-phone-1")
            #expect(try await rig.test.server.deliverBackChannelLogouts() == 1)
            let backend = try #require(try await Self.item(rig, run: run)["backend"] as? [String: Any])
            #expect(backend["state"] as? String == "pending" && backend["attempts"] as? Int == 1, "\(backend)")
            #expect((backend["lastError"] as? String)?.contains("reply body over 8192 bytes") == true, "\(backend)")
        } catch {
            Issue.record(error)
        }
        try await rig.stop()
    }

    /// Before: 40 sessions of an app whose backend never answered held every slot of the pass, so
    /// a healthy fleet backend's tokens arrived at a median of 20.5 s, and a run started 35 s
    /// later waited 16.4 s. Now the hung backend holds its own two lanes and the background pass
    /// goes on: the healthy backend gets all 40 at once, and a later run's token too.
    @Test func aHangingBackendHoldsOnlyItsOwnLanes() async throws {
        guard await BackendPeers.pythonIsAvailable() else { return }
        let peer = try await HostilePeer()
        defer { peer.stop() }
        let live = try await LoopbackServer.start(routes: ["/backchannel": .init(status: 200, contentType: "text/plain", body: "")])
        let port = try await OIDCBackendPeer.freePort()
        let rig = try await AppleRig.start(.sqlite) { configuration in
            configuration.port = port
            configuration.publicURL = try? ServerConfiguration.parsePublicURL("http://127.0.0.1:\(port)", setting: "test")
            configuration.schedulerInterval = .milliseconds(100)
        }
        do {
            let app = try await Self.app(rig, uri: peer.url(.hang, "/bcl"))
            _ = try await OpenIDConnectTests.register(rig.test, ["client_name": "fleet backend", "backchannel_logout_uri": live.origin + "/backchannel"])
            let first = ContinuousClock.now
            for index in 0..<40 { _ = try await Self.handOver(rig, app: app, device: "phone-\(index)") }
            let started = ContinuousClock.now
            while live.received.count < 40, started.duration(to: .now) < .seconds(30) { try await Task.sleep(for: .milliseconds(20)) }
            let waited = started.duration(to: .now)
            #expect(live.received.count == 40, "the healthy backend got \(live.received.count) of 40")
            #expect(waited < .seconds(8), "the healthy backend's 40 tokens took \(waited)")
            // Two lanes, each attempt ending after its 10 s: on a busy machine the first two may have
            // timed out and the next two begun.
            let allowed = 2 * (1 + Int(first.duration(to: .now) / .seconds(10)))
            let hung = try await peer.count(.hang)
            #expect(hung <= allowed, "the hung backend holds at most two lanes (\(hung) requests, \(allowed) allowed)")

            // A hand-over now, while the hung backend still holds its lanes.
            _ = try await Self.handOver(rig, app: app, device: "phone-late")
            let later = ContinuousClock.now
            while live.received.count < 41, later.duration(to: .now) < .seconds(15) { try await Task.sleep(for: .milliseconds(20)) }
            let lateWait = later.duration(to: .now)
            #expect(live.received.count == 41 && lateWait < .seconds(3), "the later run's token waited \(lateWait)")
        } catch {
            Issue.record(error)
        }
        try await rig.stop()
        try await live.shutdown()
    }

    /// Before: queued rows kept the address they were written with; a backend moved or removed
    /// from the registry was still tried (63 times in the red team's run).
    @Test func theAddressIsTheRegistrysAtSendTime() async throws {
        let live = try await LoopbackServer.start(routes: ["/moved": .init(status: 200, contentType: "text/plain", body: "")])
        let (rig, _) = try await OpenIDConnectTests.rig()
        do {
            let app = try await Self.app(rig, uri: "http://127.0.0.1:9/gone")
            let first = try await Self.handOver(rig, app: app, device: "ward-7-phone-1")
            #expect(try await rig.test.server.deliverBackChannelLogouts() == 1)
            #expect((try await Self.item(rig, run: first)["backend"] as? [String: Any])?["attempts"] as? Int == 1)

            let moved = try await rig.test.request(.PATCH, "/api/v1/apps/\(app)", json: ["backchannelLogoutURI": live.origin + "/moved"],
                                                   key: rig.test.adminKey)
            #expect(moved.status == 200, "\(moved.text)")
            rig.advance(3)
            #expect(try await rig.test.server.deliverBackChannelLogouts() == 1)
            #expect(live.received.map(\.target) == ["/moved"], "the retry went to the new address")
            #expect((try await Self.item(rig, run: first)["backend"] as? [String: Any])?["state"] as? String == "delivered")

            let second = try await Self.handOver(rig, app: app, device: "ward-7-phone-2")
            let removed = try await rig.test.request(.PATCH, "/api/v1/apps/\(app)", json: ["backchannelLogoutURI": ""], key: rig.test.adminKey)
            #expect(removed.status == 200 && removed.json["backchannelLogoutURI"] == nil, "\(removed.text)")
            #expect(try await rig.test.server.deliverBackChannelLogouts() == 1)
            // The run's view shows a backend only for apps that have one now: read the outbox row.
            let row = try #require(try await BackChannelLogoutDelivery.query(on: rig.test.server.databases.primary)
                .filter(\.$runID == UUID(uuidString: second.id)).first())
            #expect(row.status == .failed && row.lastError?.contains("no longer has a backchannel_logout_uri") == true,
                    "\(row.status) \(row.lastError ?? "")")
            #expect(live.received.count == 1, "nothing was sent for the removed address")
        } catch {
            Issue.record(error)
        }
        try await rig.stop()
        try await live.shutdown()
    }

    /// Before: an app switched to backend-only during a run saw its ULC item succeed as soon as
    /// its backend took the token, with no callback from the phone (the settling read the app's
    /// method now). A run keeps the methods it started with.
    @Test func aRunKeepsTheLogoutMethodsItStartedWith() async throws {
        let live = try await LoopbackServer.start(routes: ["/backchannel": .init(status: 200, contentType: "text/plain", body: "")])
        let (rig, _) = try await OpenIDConnectTests.rig()
        do {
            let app = try await Self.app(rig, uri: live.origin + "/backchannel")
            let run = try await Self.handOver(rig, app: app, device: "ward-7-phone-1")
            let switched = try await rig.test.request(.PATCH, "/api/v1/apps/\(app)", json: ["logoutMethod": "backend-only"], key: rig.test.adminKey)
            #expect(switched.status == 200, "\(switched.text)")
            #expect(try await rig.test.server.deliverBackChannelLogouts() == 1)
            #expect(live.received.count == 1)
            let item = try await Self.item(rig, run: run)
            #expect(item["status"] as? String == "pending", "the ULC item still waits for the phone's callback: \(item)")
            #expect((item["backend"] as? [String: Any])?["state"] as? String == "delivered")

            // A run started after the switch is backend-only, and finishes with its token.
            let next = try await Self.handOver(rig, app: app, device: "ward-7-phone-2")
            #expect(try await rig.test.server.deliverBackChannelLogouts() == 1)
            #expect(try await Self.item(rig, run: next)["status"] as? String == "succeeded")
        } catch {
            Issue.record(error)
        }
        try await rig.stop()
        try await live.shutdown()
    }
}
