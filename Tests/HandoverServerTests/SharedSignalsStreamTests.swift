import FluentKit
import Foundation
import HandoverCore
import HandoverSchema
import HandoverServer
import Testing

/// Stream management as SSF 1.0 §8.1 says it, driven by the joserfc receiver peer: update (PATCH,
/// §8.1.1.3), replace (PUT, §8.1.1.4), status (§8.1.2: a paused stream holds its events, an
/// enabled one sends them), subjects (§8.1.3: a removed subject's events stop, added back they
/// come again), verification's rate (§8.1.1 `min_verification_interval`), delete (§8.1.1.5), and
/// one receiver never sees another's stream. CAEP credential-change (§3.3) when a hand-over
/// revokes a Native SSO device secret.
@Suite("Shared Signals: streams", .serialized, .timeLimit(.minutes(5)), .stopsTestServers)
struct SharedSignalsStreamTests {
    static let revoked = SharedSignalsPeers.caep + "session-revoked"
    static let credential = SharedSignalsPeers.caep + "credential-change"

    @Test(arguments: TestDatabase.available) func aStreamIsUpdatedPausedNarrowedAndDeleted(database: TestDatabase) async throws {
        let (rig, issuer) = try await OpenIDConnectTests.rig(database)
        guard await SharedSignalsPeers.isAvailable() else { try await rig.stop(); return }
        let client = try await OpenIDConnectTests.register(rig.test, ["client_name": "proxy"])
        let receiver = try await SharedSignalsPeers.Receiver(test: rig.test, issuer: issuer, client: client)
        defer { receiver.stop() }
        let created = try await receiver.control("stream", ["method": "poll", "events_requested": [Self.revoked, Self.credential]])
        let id = created.json["stream_id"] as? String ?? ""
        func call(_ method: String, _ path: String, _ json: [String: Any]? = nil, query: [String: String]? = nil) async throws -> [String: Any] {
            var body: [String: Any] = ["method": method, "path": path]
            body["json"] = json
            body["query"] = query
            return try await receiver.control("request", body).json
        }

        // PATCH changes what it names; PUT replaces the receiver's fields.
        let patched = try await call("PATCH", "/ssf/stream", ["stream_id": id, "description": "ward 7 proxy"])
        #expect(patched["status"] as? Int == 200 && (patched["body"] as? [String: Any])?["description"] as? String == "ward 7 proxy", "\(patched)")
        #expect(((patched["body"] as? [String: Any])?["events_delivered"] as? [String])?.count == 2, "PATCH left events_requested as it was")
        let wrongIssuer = try await call("PATCH", "/ssf/stream", ["stream_id": id, "iss": "https://elsewhere.example.com"])
        #expect(wrongIssuer["status"] as? Int == 400, "a transmitter field must match: \(wrongIssuer)")
        let replaced = try await call("PUT", "/ssf/stream", ["stream_id": id, "delivery": ["method": "urn:ietf:rfc:8936"], "events_requested": [Self.revoked, Self.credential]])
        #expect(replaced["status"] as? Int == 200 && (replaced["body"] as? [String: Any])?["description"] == nil, "PUT cleared the description: \(replaced)")

        // Verification at most every 5 s (429 sooner).
        #expect(try await receiver.control("verify", ["state": "one"]).json["status"] as? Int == 204)
        #expect(try await receiver.control("verify", ["state": "two"]).json["status"] as? Int == 429)
        _ = try await receiver.control("poll", ["returnImmediately": true, "ack": false])
        _ = try await receiver.control("poll", ["returnImmediately": true, "ack": true])

        // Paused: a hand-over's events are held; enabled: they come.
        let paused = try await call("POST", "/ssf/status", ["stream_id": id, "status": "paused", "reason": "maintenance"])
        #expect((paused["body"] as? [String: Any])?["status"] as? String == "paused", "\(paused)")
        let status = try await call("GET", "/ssf/status", query: ["stream_id": id])
        #expect((status["body"] as? [String: Any])?["reason"] as? String == "maintenance")
        let app = try await rig.test.registerTarget("Mail", deadline: 5, maxReissues: 0)
        let device = try await rig.test.registerDevice()
        _ = try await rig.signIn(extra: ["deviceID": device.id, "scope": "openid device_sso"])
        #expect(try await rig.test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", json: ["apps": [app]], key: device.key).status == 201)
        let whilePaused = try await receiver.control("poll", ["returnImmediately": true, "ack": true])
        #expect((whilePaused.json["jtis"] as? [String])?.isEmpty == true, "\(whilePaused.text)")
        _ = try await call("POST", "/ssf/status", ["stream_id": id, "status": "enabled"])
        let held = try await receiver.control("poll", ["returnImmediately": true, "ack": true])
        #expect((held.json["jtis"] as? [String])?.count == 2, "the session and its device secret: \(held.text)")
        let types = try await receiver.events().suffix(2).compactMap { $0["type"] as? String }
        #expect(Set(types) == [Self.revoked, Self.credential], "\(types)")

        // A subject removed: its events stop; added back, they come again.
        let subject: [String: Any] = ["format": "email", "email": "ward7@example.com"]
        let removed = try await call("POST", "/ssf/subjects:remove", ["stream_id": id, "subject": subject])
        #expect(removed["status"] as? Int == 204, "\(removed)")
        let second = try await rig.test.registerDevice("ward-7-phone-4")
        _ = try await rig.signIn(extra: ["deviceID": second.id])
        _ = try await rig.test.request(.POST, "/api/v1/devices/\(second.id)/logout-runs", json: ["apps": [app]], key: second.key)
        #expect((try await receiver.control("poll", ["returnImmediately": true, "ack": true]).json["jtis"] as? [String])?.isEmpty == true)
        let added = try await call("POST", "/ssf/subjects:add", ["stream_id": id, "subject": subject, "verified": true])
        #expect(added["status"] as? Int == 200, "\(added)")
        let third = try await rig.test.registerDevice("ward-7-phone-5")
        _ = try await rig.signIn(extra: ["deviceID": third.id])
        _ = try await rig.test.request(.POST, "/api/v1/devices/\(third.id)/logout-runs", json: ["apps": [app]], key: third.key)
        #expect((try await receiver.control("poll", ["returnImmediately": true, "ack": true]).json["jtis"] as? [String])?.count == 1)

        // A device key revoked: CAEP credential-change for the device (§3.3).
        // (Device keys are not listed by GET /api/v1/keys; the test reads its id from the database.)
        let deviceKey = try #require(try await APIKey.query(on: rig.test.server.databases.primary).filter(\.$deviceID == UUID(uuidString: third.id)).first()?.id)
        #expect(try await rig.test.request(.DELETE, "/api/v1/keys/\(deviceKey)", key: rig.test.adminKey).status == 204)
        #expect((try await receiver.control("poll", ["returnImmediately": true, "ack": true]).json["jtis"] as? [String])?.count == 1)
        let change = try #require(try await receiver.events().last)
        #expect(change["type"] as? String == Self.credential && (change["event"] as? [String: Any])?["change_type"] as? String == "revoke", "\(change)")
        #expect((((change["sub_id"] as? [String: Any])?["device"]) as? [String: Any])?["id"] as? String == third.id.lowercased())

        // Another receiver sees none of it.
        let other = try await OpenIDConnectTests.register(rig.test, ["client_name": "someone else"])
        let token = try await OpenIDConnectTests.form(rig.test, "/oauth/token", ["grant_type": "client_credentials"], basic: (other.id, other.secret))
        #expect(token.status == 200 && token.json["token_type"] as? String == "Bearer" && token.json["expires_in"] as? Int == 3600, "\(token.text)")
        let theirs = try await rig.test.request(.GET, "/ssf/stream?stream_id=\(id)", key: token.json["access_token"] as? String ?? "")
        #expect(theirs.status == 404, "\(theirs.text)")
        let list = try await rig.test.request(.GET, "/ssf/stream", key: token.json["access_token"] as? String ?? "")
        #expect(list.status == 200 && list.text == "[]", "\(list.text)")
        #expect(try await rig.test.request(.GET, "/ssf/stream", key: rig.test.adminKey).status == 401, "an admin key is not a receiver's token")

        // Deleted: gone, with what it owed.
        let deleted = try await call("DELETE", "/ssf/stream", query: ["stream_id": id])
        #expect(deleted["status"] as? Int == 204, "\(deleted)")
        #expect(try await call("GET", "/ssf/stream", query: ["stream_id": id])["status"] as? Int == 404)
        try await rig.stop()
    }
}
