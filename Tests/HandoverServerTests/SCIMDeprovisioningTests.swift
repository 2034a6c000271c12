import Foundation
import HandoverConfiguration
import HandoverServer
import SQLKit
import Testing
import Vapor

/// Deprovisioning ends everything (issue 67): a person provisioned by SCIM with a badge checks a
/// device out by that badge with no badge lookup configured; when the directory deactivates them
/// the device hands over at once, their token is dead, the badge is refused, and the audit log and
/// a Shared Signals receiver's stream carry the event (RISC 1.0 §2.3, account-disabled).
@Suite("SCIM: deprovisioning", .serialized, .timeLimit(.minutes(5)), .stopsTestServers)
struct SCIMDeprovisioningTests {
    @Test(arguments: TestDatabase.available) func deactivationHandsOverEndsTheTokenAndRefusesTheBadge(database: TestDatabase) async throws {
        let rig = try await AppleRig.startOnFreePort(database) { configuration, port in
            configuration.publicURL = try? ServerConfiguration.parsePublicURL("http://127.0.0.1:\(port)", setting: "test")
            configuration.directory.tokens = [SCIMVendorReplayTests.token]
        }
        let test = rig.test
        let issuer = test.server.publicURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let peers = await SharedSignalsPeers.isAvailable()
        var receiver: SharedSignalsPeers.Receiver?
        if peers {
            let client = try await OpenIDConnectTests.register(test, ["client_name": "SIEM"])
            receiver = try await SharedSignalsPeers.Receiver(test: test, issuer: issuer, client: client)
            let stream = try await receiver?.control("stream", ["method": "poll", "events_requested": [
                SharedSignalsPeers.risc + "account-disabled", SharedSignalsPeers.caep + "session-revoked"]])
            #expect(stream?.status == 200, "\(stream?.text ?? "")")
        }
        defer { receiver?.stop() }

        let created = try await SCIMVendorReplayTests.scim(test, .POST, "/Users", """
            {"schemas":["urn:ietf:params:scim:schemas:core:2.0:User","urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],
             "userName":"ward7@example.com","displayName":"Ada Nurse","emails":[{"value":"Ward7@example.com","type":"work","primary":true}],
             "active":true,"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User":{"employeeNumber":"B-4242"}}
            """)
        #expect(created.status == 201, "\(created.text)")
        let id = try #require(created.json["id"] as? String)

        // The badge, with no lookup URL: the directory knows it.
        _ = try await test.registerTarget("Mail", deadline: 5, maxReissues: 0)
        let device = try await test.registerDevice()
        let out = try await test.request(.POST, "/api/v1/devices/\(device.id)/custody", json: ["badge": "B-4242"], key: device.key)
        #expect(out.status == 201 && out.json["checkedOutBy"] as? String == "badge" && out.json["personEmail"] as? String == "ward7@example.com", "\(out.text)")
        // The badge is kept only as its keyed digest and sealed, never in clear.
        let sql = try #require(test.server.databases.primary as? any SQLDatabase)
        let stored = try await sql.raw("SELECT document, badge_digest, badge_sealed FROM directory_users").all()
        #expect(stored.count == 1)
        for row in stored {
            #expect(try !row.decode(column: "document", as: String.self).contains("B-4242"))
            #expect(try row.decode(column: "badge_digest", as: String?.self)?.count == 64)
            #expect(try row.decode(column: "badge_sealed", as: String?.self)?.contains("B-4242") == false)
        }
        // The same person signs in on the device they hold.
        let grant = try await rig.signIn(extra: ["deviceID": device.id])
        let token = try #require(grant["accessToken"] as? String)
        #expect(try await rig.me(token).status == 200)

        // The directory deactivates them.
        let off = try await SCIMVendorReplayTests.scim(test, .PATCH, "/Users/\(id)", """
            {"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"Replace","path":"active","value":"False"}]}
            """)
        #expect(off.status == 200 && off.json["active"] as? Bool == false, "\(off.text)")
        let runs = try await test.request(.GET, "/api/v1/devices/\(device.id)/history", key: test.adminKey).array.filter { $0["event"] as? String == "run_started" }
        #expect(runs.count == 1 && (runs.first?["actor"] as? String)?.contains("deprovisioned") == true, "the device hands over at once: \(runs)")
        #expect(try await rig.me(token).status == 401, "their token is dead")
        // Within one scheduler pass past the app's deadline the hand-over is over and the custody closed.
        rig.advance(6)
        _ = try await test.server.fireDeadlines()
        let custody = try await test.request(.GET, "/api/v1/custody?device=\(device.id)", key: test.adminKey)
        let rows = custody.json["custodies"] as? [[String: Any]] ?? []
        #expect(!rows.isEmpty && rows.allSatisfy { $0["checkedInAt"] is String }, "\(custody.text)")
        // The badge is refused from then on.
        let again = try await test.request(.POST, "/api/v1/devices/\(device.id)/custody", json: ["badge": "B-4242"], key: device.key)
        #expect(again.status == 403 && again.text.contains("badge_deprovisioned"), "\(again.text)")

        // The audit log names the SCIM client.
        let size = try await test.server.signAuditCheckpoint() ?? 0
        let entries = try await test.request(.GET, "/api/v1/audit/entries?start=0&end=\(size)", key: test.adminKey)
        #expect(entries.text.contains("admin.deprovisioned") && entries.text.contains("SCIM client") && entries.text.contains("ward7@example.com"),
                "\(entries.text.suffix(1500))")
        // The receiver's stream carries account-disabled for the person, and their session's end.
        if let receiver {
            let polled = try await receiver.control("poll", ["returnImmediately": true, "ack": true])
            #expect(polled.status == 200, "\(polled.text)")
            let events = try await receiver.events()
            #expect(events.contains { $0["type"] as? String == SharedSignalsPeers.risc + "account-disabled"
                && ($0["sub_id"] as? [String: Any])?["email"] as? String == "ward7@example.com" }, "\(events)")
            #expect(events.contains { $0["type"] as? String == SharedSignalsPeers.caep + "session-revoked" }, "\(events)")
        }

        // Reactivated, they start fresh: the badge works again, the old token stays dead.
        let on = try await SCIMVendorReplayTests.scim(test, .PATCH, "/Users/\(id)", """
            {"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"replace","value":{"active":true}}]}
            """)
        #expect(on.status == 200 && on.json["active"] as? Bool == true, "\(on.text)")
        #expect(try await rig.me(token).status == 401)
        try await rig.stop()
    }
}
