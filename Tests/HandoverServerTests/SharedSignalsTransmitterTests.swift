import Foundation
import HandoverServer
import Testing

/// Handover as a Shared Signals transmitter (issue 43), tested against a receiver written on
/// joserfc (`Tests/Peers/ssf_receiver.py`), by push (RFC 8935) and by poll (RFC 8936): a stream
/// made with client credentials (SSF 1.0 §8.1.1.1, RFC 6749 §4.4), the verification event
/// (§8.1.4), one CAEP session-revoked per session a hand-over ends (CAEP 1.0 §3.1), and CAEP
/// device-compliance-change (§3.5) when a device goes out of service and comes back.
@Suite("Shared Signals: transmitter", .serialized, .timeLimit(.minutes(5)), .stopsTestServers)
struct SharedSignalsTransmitterTests {
    /// A server whose issuer is its own loopback origin, with Sign in with Apple for the sessions.
    static func rig(_ database: TestDatabase) async throws -> (AppleRig, String) {
        try await OpenIDConnectTests.rig(database)
    }

    /// The `sid` of an access token (the session it belongs to).
    static func sessionID(_ accessToken: String) -> String {
        let part = accessToken.split(separator: ".").dropFirst().first.map(String.init) ?? ""
        var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        let claims = Data(base64Encoded: text).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
        return (claims?["sid"] as? String ?? "").lowercased()
    }

    /// A device with a target app that times out at once, and `sessions` sessions of one person on it.
    static func occupiedDevice(_ rig: AppleRig, sessions: Int) async throws -> (device: (id: String, key: String), app: String, sessionIDs: Set<String>) {
        let app = try await rig.test.registerTarget("Mail", deadline: 5, maxReissues: 0)
        let device = try await rig.test.registerDevice()
        var ids: Set<String> = []
        for _ in 0..<sessions {
            let grant = try await rig.signIn(extra: ["deviceID": device.id])
            ids.insert(sessionID(grant["accessToken"] as? String ?? ""))
        }
        return (device, app, ids)
    }

    @Test(arguments: TestDatabase.available) func aReceiverByPushGetsEveryEventAndAFailedPushIsSentAgain(database: TestDatabase) async throws {
        let (rig, issuer) = try await Self.rig(database)
        guard await SharedSignalsPeers.isAvailable() else { try await rig.stop(); return }
        let client = try await OpenIDConnectTests.register(rig.test, ["client_name": "SIEM"])
        let receiver = try await SharedSignalsPeers.Receiver(test: rig.test, issuer: issuer, client: client)
        defer { receiver.stop() }
        let stream = try await receiver.control("stream", ["method": "push", "events_requested": [
            SharedSignalsPeers.caep + "session-revoked", SharedSignalsPeers.caep + "device-compliance-change"]])
        #expect(stream.status == 200 && (stream.json["delivery"] as? [String: Any])?["method"] as? String == "urn:ietf:rfc:8935", "\(stream.text)")
        #expect(stream.json["aud"] as? String == client.id && stream.json["iss"] as? String == issuer)

        // SSF §8.1.4.2: verification, with the receiver's state.
        let verify = try await receiver.control("verify", ["state": "first-check"])
        #expect(verify.json["status"] as? Int == 204, "\(verify.text)")
        #expect(try await rig.test.server.deliverSecurityEvents() == 1)
        var events = try await receiver.events()
        #expect(events.count == 1 && events.first?["type"] as? String == SharedSignalsPeers.verification, "\(events)")
        #expect((events.first?["event"] as? [String: Any])?["state"] as? String == "first-check")

        // A hand-over ends two sessions: two session-revoked events, each naming its session, the run as txn.
        let (device, app, sessionIDs) = try await Self.occupiedDevice(rig, sessions: 2)
        let run = try await rig.test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", json: ["apps": [app]], key: device.key)
        #expect(run.status == 201, "\(run.text)")
        #expect(try await rig.test.server.deliverSecurityEvents() == 2)
        events = try await receiver.events()
        let revoked = events.filter { $0["type"] as? String == SharedSignalsPeers.caep + "session-revoked" }
        #expect(revoked.count == 2, "one per ended session: \(events)")
        let named = Set(revoked.compactMap { (($0["sub_id"] as? [String: Any])?["session"] as? [String: Any])?["id"] as? String })
        #expect(named == sessionIDs, "each names its session: \(revoked)")
        #expect(revoked.allSatisfy { $0["txn"] as? String == (run.json["id"] as? String)?.lowercased() }, "\(revoked)")
        let user = (revoked.first?["sub_id"] as? [String: Any])?["user"] as? [String: Any]
        #expect((user?["identifiers"] as? [[String: Any]])?.contains { $0["email"] as? String == "ward7@example.com" } == true, "\(String(describing: user))")

        // The run times out: out of service is not compliant; back in service is.
        rig.advance(6)
        try await rig.test.server.fireDeadlines()
        #expect(try await rig.test.server.deliverSecurityEvents() == 1)
        let back = try await rig.test.request(.POST, "/api/v1/devices/\(device.id)/back-in-service", json: ["note": "checked by hand"], key: rig.test.adminKey)
        #expect(back.status == 200, "\(back.text)")
        #expect(try await rig.test.server.deliverSecurityEvents() == 1)
        events = try await receiver.events()
        let compliance = events.filter { $0["type"] as? String == SharedSignalsPeers.caep + "device-compliance-change" }
        #expect(compliance.map { ($0["event"] as? [String: Any])?["current_status"] as? String ?? "" } == ["not-compliant", "compliant"], "\(compliance)")
        #expect(compliance.allSatisfy { (($0["sub_id"] as? [String: Any])?["device"] as? [String: Any])?["id"] as? String == device.id.lowercased() })

        // A push answered 503 stays owed and is sent again after its back-off (RFC 8935 §4).
        _ = try await receiver.control("fail", ["count": 1])
        rig.advance(6)
        #expect(try await receiver.control("verify", ["state": "second-check"]).json["status"] as? Int == 204)
        #expect(try await rig.test.server.deliverSecurityEvents() == 1)
        #expect(try await rig.test.server.deliverSecurityEvents() == 0, "the retry waits for its back-off")
        rig.advance(3)
        #expect(try await rig.test.server.deliverSecurityEvents() == 1)
        events = try await receiver.events()
        #expect(events.last.flatMap { ($0["event"] as? [String: Any])?["state"] as? String } == "second-check", "\(events)")
        #expect(try await receiver.control("events").json["refused"].map { ($0 as? [Any])?.count ?? 0 } == 1)
        #expect(events.allSatisfy { $0["repeat"] == nil }, "nothing was delivered twice")
        // The dashboard's audit page shows the stream and what it took.
        let browser = DashboardBrowser(rig.test)
        _ = try await browser.signIn(key: rig.test.adminKey)
        let page = try await browser.get("/dashboard/audit")
        #expect(page.text.contains("signal-streams") && page.text.contains("SIEM") && page.text.contains("push (RFC 8935)"), "\(page.text.suffix(1500))")
        try await rig.stop()
    }

    @Test(arguments: TestDatabase.available) func aReceiverByPollGetsEveryEventAndWhatItDoesNotAcknowledgeComesBack(database: TestDatabase) async throws {
        let (rig, issuer) = try await Self.rig(database)
        guard await SharedSignalsPeers.isAvailable() else { try await rig.stop(); return }
        let client = try await OpenIDConnectTests.register(rig.test, ["client_name": "zero-trust proxy"])
        let receiver = try await SharedSignalsPeers.Receiver(test: rig.test, issuer: issuer, client: client)
        defer { receiver.stop() }
        let stream = try await receiver.control("stream", ["method": "poll", "events_requested": [
            SharedSignalsPeers.caep + "session-revoked", SharedSignalsPeers.caep + "device-compliance-change", SharedSignalsPeers.caep + "credential-change"]])
        #expect((stream.json["events_delivered"] as? [String])?.count == 3, "\(stream.text)")
        let delivery = stream.json["delivery"] as? [String: Any]
        #expect(delivery?["method"] as? String == "urn:ietf:rfc:8936" && (delivery?["endpoint_url"] as? String)?.hasPrefix(issuer + "/ssf/poll/") == true,
                "\(stream.text)")
        #expect(try await receiver.control("verify", ["state": "poll-check"]).json["status"] as? Int == 204)

        // RFC 8936 §2.4: returned, not acknowledged, returned again; acknowledged, gone.
        let first = try await receiver.control("poll", ["returnImmediately": true, "ack": false])
        let jtis = first.json["jtis"] as? [String] ?? []
        #expect(jtis.count == 1 && (first.json["errors"] as? [String: Any])?.isEmpty != false, "\(first.text)")
        let again = try await receiver.control("poll", ["returnImmediately": true, "ack": false])
        #expect(again.json["jtis"] as? [String] == jtis, "unacknowledged, it comes back: \(again.text)")
        let acked = try await receiver.control("poll", ["returnImmediately": true, "ack": true])
        #expect(acked.json["acked"] as? [String] == jtis && (acked.json["jtis"] as? [String])?.isEmpty == true, "\(acked.text)")
        let empty = try await receiver.control("poll", ["returnImmediately": true, "ack": true])
        #expect((empty.json["jtis"] as? [String])?.isEmpty == true, "acknowledged, it never comes back: \(empty.text)")

        // A hand-over's session-revoked and the compliance change, by poll.
        let (device, app, sessionIDs) = try await Self.occupiedDevice(rig, sessions: 1)
        _ = try await rig.test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", json: ["apps": [app]], key: device.key)
        rig.advance(6)
        try await rig.test.server.fireDeadlines()
        let events = try await receiver.control("poll", ["returnImmediately": true, "ack": true])
        #expect((events.json["jtis"] as? [String])?.count == 2, "\(events.text)")
        let received = try await receiver.events().filter { $0["via"] as? String == "poll" }
        let types = received.compactMap { $0["type"] as? String }
        #expect(types.contains(SharedSignalsPeers.caep + "session-revoked") && types.contains(SharedSignalsPeers.caep + "device-compliance-change"), "\(types)")
        let session = received.first { $0["type"] as? String == SharedSignalsPeers.caep + "session-revoked" }
        #expect(((session?["sub_id"] as? [String: Any])?["session"] as? [String: Any])?["id"] as? String == sessionIDs.first)
        // Back in service: compliant again, by poll too.
        let back = try await rig.test.request(.POST, "/api/v1/devices/\(device.id)/back-in-service", json: ["note": "checked by hand"], key: rig.test.adminKey)
        #expect(back.status == 200, "\(back.text)")
        #expect((try await receiver.control("poll", ["returnImmediately": true, "ack": true]).json["jtis"] as? [String])?.count == 1)
        let compliance = try await receiver.events().filter { $0["type"] as? String == SharedSignalsPeers.caep + "device-compliance-change" }
        #expect(compliance.map { ($0["event"] as? [String: Any])?["current_status"] as? String ?? "" } == ["not-compliant", "compliant"], "\(compliance)")

        // The push lane leaves a poll stream alone.
        #expect(try await rig.test.server.deliverSecurityEvents() == 0)

        // An event nobody takes is kept for the retention (7 days by default), then dropped.
        #expect(try await receiver.control("verify", ["state": "never-polled"]).json["status"] as? Int == 204)
        rig.advance(6 * 86_400)
        #expect(try await rig.test.server.expireSecurityEvents() == 0, "within the retention it stays")
        rig.advance(86_400 + 60)
        #expect(try await rig.test.server.expireSecurityEvents() >= 1, "the one never polled, and the settled ones as old")
        let late = try await receiver.control("poll", ["returnImmediately": true, "ack": true])
        #expect((late.json["jtis"] as? [String])?.isEmpty == true, "\(late.text)")
        try await rig.stop()
    }
}
